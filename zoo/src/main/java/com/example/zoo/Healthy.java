package com.example.zoo;

import java.util.LinkedHashMap;
import java.util.Map;

/** healthy: a little JSON work per request; the baseline of the zoo. */
final class Healthy implements Scenario {
    private final Config cfg;

    Healthy(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public String handle(long n, Map<String, String> query) {
        String sku = query.getOrDefault("sku", "SKU-" + (n % 100));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", cfg.scenario);
        m.put("request", n);
        m.put("sku", sku);
        long price = 1000 + Math.floorMod(sku.hashCode(), 9000);
        m.put("priceCents", price);
        m.put("tax", price * 13 / 100);
        m.put("currency", "CNY");
        return Json.obj(m);
    }

    @Override
    public String describe() {
        return "healthy: a little JSON work per request (no bottleneck)";
    }
}
