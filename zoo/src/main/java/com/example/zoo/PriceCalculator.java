package com.example.zoo;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * cpu-hot: every request recomputes a price checksum the naive way: String.format and
 * Pattern.compile in a loop (about 2-5 ms of CPU per request). A CPU profile shows
 * com.example.zoo.PriceCalculator.computeChecksum at the top, under java.util.Formatter and
 * java.util.regex.Pattern.
 *
 * <p>--fixed: the pattern is compiled once and the checksum, a pure function of the SKU, is
 * cached (ConcurrentHashMap.computeIfAbsent).
 */
final class PriceCalculator implements Scenario {
    /** Lines per checksum: sized for about 2-5 ms of CPU on a 2020s x86 core. */
    static final int LINES = 500;
    static final String LINE_REGEX = "^([A-Z]+)-(\\d+)\\|(\\d{5})\\|([0-9.]+)\\|([A-Z]{3})$";
    private static final Pattern LINE = Pattern.compile(LINE_REGEX);

    private final Config cfg;
    private final Map<String, Long> cache = new ConcurrentHashMap<>();

    PriceCalculator(Config cfg) {
        this.cfg = cfg;
    }

    /** The hot method: naive, recompiles the regex and formats every line. */
    static long computeChecksum(String sku, long priceCents) {
        return computeChecksum(sku, priceCents, LINES);
    }

    /** computeChecksum over a given number of lines (--work-pct scales LINES). */
    static long computeChecksum(String sku, long priceCents, int lines) {
        CRC32 crc = new CRC32();
        for (int i = 0; i < lines; i++) {
            String line = String.format(Locale.ROOT, "%s|%05d|%.4f|%s", sku, i, priceCents * (i + 1) / 100.0, "CNY");
            Matcher m = Pattern.compile(LINE_REGEX).matcher(line);
            if (m.matches()) {
                crc.update(m.group(4).getBytes(StandardCharsets.UTF_8));
                crc.update(m.group(3).getBytes(StandardCharsets.UTF_8));
            }
        }
        return crc.getValue();
    }

    /** The same result with the pattern compiled once. */
    static long computeChecksumPrecompiled(String sku, long priceCents) {
        CRC32 crc = new CRC32();
        for (int i = 0; i < LINES; i++) {
            String line = String.format(Locale.ROOT, "%s|%05d|%.4f|%s", sku, i, priceCents * (i + 1) / 100.0, "CNY");
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                crc.update(m.group(4).getBytes(StandardCharsets.UTF_8));
                crc.update(m.group(3).getBytes(StandardCharsets.UTF_8));
            }
        }
        return crc.getValue();
    }

    /** The fix: the checksum depends on the SKU only, so compute it once per SKU. */
    long computeChecksumCached(String sku, long priceCents) {
        return cache.computeIfAbsent(sku + '@' + priceCents, k -> computeChecksumPrecompiled(sku, priceCents));
    }

    @Override
    public String handle(long n, Map<String, String> query) {
        String sku = query.getOrDefault("sku", "SKU-" + (n % 100));
        long price = 1000 + Math.floorMod(sku.hashCode(), 9000);
        long checksum = cfg.fixed ? computeChecksumCached(sku, price) : computeChecksum(sku, price, LINES * cfg.workPct / 100);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sku", sku);
        m.put("priceCents", price);
        m.put("checksum", checksum);
        return Json.obj(m);
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "cpu-hot (fixed): PriceCalculator.computeChecksumCached: regex compiled once, checksum cached per SKU"
                : "cpu-hot: PriceCalculator.computeChecksum: String.format + Pattern.compile x" + LINES * cfg.workPct / 100 + " per request";
    }
}
