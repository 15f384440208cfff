package com.example.zoo;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * future-serial: every request asks for a quote through a CompletableFuture stage that runs on
 * an executor with ONE worker ("quote-pricer-1"); the stage blocks ~20 ms (Thread.sleep, the
 * rate service's own latency) and the request thread waits on the future. The stage is serial:
 * throughput is capped near 1 / 20 ms = 50/s whatever the load, and a thread dump shows the
 * http-nio-*-exec-* threads WAITING in CompletableFuture.get (parked on a
 * CompletableFuture$Signaller) while quote-pricer-1 is TIMED_WAITING in Thread.sleep under
 * QuoteService.price, and the rest of the work sits in the executor's queue.
 *
 * <p>--fixed: the stage runs on a pool sized to the request concurrency (--threads).
 */
final class QuoteService implements Scenario {
    static final long PRICE_MS = 20;

    private final Config cfg;
    private ExecutorService pricer;
    private int workers;

    QuoteService(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public void start() {
        workers = cfg.fixed ? cfg.threads : 1;
        AtomicInteger seq = new AtomicInteger();
        ThreadFactory tf = r -> {
            Thread t = new Thread(r, "quote-pricer-" + seq.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        pricer = Executors.newFixedThreadPool(workers, tf);
    }

    /** The stage's work: a call to a rate service that takes ~20 ms. */
    static long price(String sku) throws InterruptedException {
        Thread.sleep(PRICE_MS);
        return 1000 + Math.floorMod(sku.hashCode(), 9000);
    }

    @Override
    public String handle(long n, Map<String, String> query) throws Exception {
        String sku = query.getOrDefault("sku", "SKU-" + (n % 100));
        CompletableFuture<Long> quote = CompletableFuture.supplyAsync(() -> {
            try {
                return price(sku);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }, pricer).thenApply(p -> p * 113 / 100);
        long withTax = quote.get();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sku", sku);
        m.put("priceCents", withTax);
        m.put("pricerThreads", workers);
        return Json.obj(m);
    }

    @Override
    public void stop() {
        if (pricer != null) {
            pricer.shutdownNow();
            try {
                pricer.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "future-serial (fixed): the pricing stage runs on " + workers + " quote-pricer threads (sized to --threads)"
                : "future-serial: every request waits on a CompletableFuture completed by the one quote-pricer thread (~" + PRICE_MS + " ms per quote): ~50/s at most";
    }
}
