package com.northwind.storefront.accounts;

import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class AccountController {
    private final DisplayNamePolicy names;

    public AccountController(DisplayNamePolicy names) {
        this.names = names;
    }

    /** The sign-up form checks a display name as the customer types it. */
    @GetMapping("/api/accounts/check-name")
    public Map<String, Object> checkName(@RequestParam String displayName) {
        return Map.of("displayName", displayName, "acceptable", names.isAcceptable(displayName));
    }
}
