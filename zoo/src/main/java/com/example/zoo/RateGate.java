package com.example.zoo;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;

/**
 * permit-starvation: a home-made concurrency limit in front of a partner API, a plain
 * java.util.concurrent.Semaphore with 2 permits (no pool library); each request holds a permit
 * for the ~20 ms the partner takes (Thread.sleep). Throughput is capped at 2 / 20 ms = 100/s; a
 * thread dump shows the http-nio-*-exec-* threads WAITING (parking) on a
 * java.util.concurrent.Semaphore$NonfairSync in Semaphore.acquire under RateGate.call, and two
 * workers TIMED_WAITING in Thread.sleep under RateGate.partner (the holders).
 *
 * <p>--fixed: as many permits as request threads (--threads).
 */
final class RateGate implements Scenario {
    static final long PARTNER_MS = 20;

    private final Config cfg;
    private final Semaphore permits;
    private final int size;

    RateGate(Config cfg) {
        this.cfg = cfg;
        this.size = cfg.fixed ? cfg.threads : 2;
        this.permits = new Semaphore(size);
    }

    /** The partner API: ~20 ms per call. */
    static String partner(String account) throws InterruptedException {
        Thread.sleep(PARTNER_MS);
        return Integer.toHexString(account.hashCode());
    }

    static String call(Semaphore permits, String account) throws InterruptedException {
        permits.acquire();
        try {
            return partner(account);
        } finally {
            permits.release();
        }
    }

    @Override
    public String handle(long n, Map<String, String> query) throws Exception {
        String account = query.getOrDefault("account", "ACC-" + (n % 500));
        String token = call(permits, account);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("account", account);
        m.put("token", token);
        m.put("permits", size);
        return Json.obj(m);
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "permit-starvation (fixed): " + size + " permits (one per request thread)"
                : "permit-starvation: a Semaphore of 2 permits, each held ~" + PARTNER_MS + " ms per request: ~100/s at most";
    }
}
