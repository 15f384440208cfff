package com.northwind.storefront.accounts;

import java.util.regex.Pattern;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** Which display names a customer may choose: up to 30 words of letters and digits, single separators between them. */
@Component
public class DisplayNamePolicy {
    // 1 to 30 words, each followed by at most one space, dot, underscore or dash.
    private static final Pattern WORDS = Pattern.compile("^([A-Za-z0-9]+[ ._-]?){1,30}$");
    // The same language with a possessive word: a word never gives characters back to the next one.
    private static final Pattern WORDS_LINEAR = Pattern.compile("^(?:[A-Za-z0-9]++[ ._-]?){1,30}$");

    private final Pattern pattern;

    public DisplayNamePolicy(@Value("${accounts.display-name.linear-pattern}") boolean linear) {
        this.pattern = linear ? WORDS_LINEAR : WORDS;
    }

    public boolean isAcceptable(String displayName) {
        if (displayName == null || displayName.isBlank() || displayName.length() > 64) {
            return false;
        }
        return pattern.matcher(displayName).matches();
    }
}
