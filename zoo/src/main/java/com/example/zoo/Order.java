package com.example.zoo;

import java.util.LinkedHashMap;
import java.util.Map;

/** A fake order: the data the logging scenarios write about. */
final class Order {
    final long id;
    final String traceId;
    final String customer;
    final String channel;
    final String sku;
    final int qty;
    final int items;
    final long priceCents;
    final long discount;
    final long tax;
    final long total;
    final String coupon;
    final String level;
    final int risk;
    final String card;
    final String payload;
    /** Tenant (bank branch) of the order: the SiftingAppender's discriminator. */
    final String tenant;

    private Order(long n, String sku) {
        id = 100000000L + n;
        traceId = Long.toHexString(id * 0x9E3779B97F4A7C15L);
        customer = "C" + (n * 7919 % 1000000);
        channel = (n & 1) == 0 ? "APP" : "WEB";
        this.sku = sku;
        qty = 1 + (int) (n % 5);
        items = qty;
        priceCents = 1000 + Math.floorMod(sku.hashCode(), 9000);
        discount = priceCents * qty / 20;
        tax = (priceCents * qty - discount) * 13 / 100;
        total = priceCents * qty - discount + tax;
        coupon = (n % 3 == 0) ? "CPN-" + (n % 97) : "none";
        tenant = "branch-" + (n % 4);
        level = (n % 10 == 0) ? "GOLD" : "STANDARD";
        risk = (int) (n % 100);
        card = String.format("%04d", n % 10000);
        payload = "{\"sku\":\"" + sku + "\",\"qty\":" + qty + ",\"addr\":\"No." + (n % 999)
                + " Zhongguancun Street, Haidian District, Beijing\",\"remark\":\"deliver before 18:00, call first\"}";
    }

    static Order of(long n, Map<String, String> query) {
        return new Order(n, query.getOrDefault("sku", "SKU-" + (n % 100)));
    }

    String json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("orderId", id);
        m.put("traceId", traceId);
        m.put("sku", sku);
        m.put("qty", qty);
        m.put("total", total);
        m.put("status", "CREATED");
        return Json.obj(m);
    }
}
