package com.example.zoo;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * single-thread: every request hands its order to a single-threaded stage
 * (Executors.newSingleThreadExecutor, thread "order-sequencer-1") that signs it (SHA-256 rounds,
 * about 1 ms of CPU) and waits on the Future. One core works, the other idles; a thread dump
 * shows the http-nio-*-exec-* threads WAITING in java.util.concurrent.FutureTask.get (parked on
 * the FutureTask) while order-sequencer-1 is RUNNABLE in OrderSequencer.sign; per-thread CPU
 * shows one thread near 100%.
 *
 * <p>--fixed: the stage is a fixed pool sized to the cores (Runtime.availableProcessors()).
 */
final class OrderSequencer implements Scenario {
    static final int ROUNDS = 12000;

    private final Config cfg;
    private ExecutorService stage;
    private int stageThreads;

    OrderSequencer(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public void start() {
        stageThreads = cfg.fixed ? Runtime.getRuntime().availableProcessors() : 1;
        AtomicInteger seq = new AtomicInteger();
        ThreadFactory tf = r -> {
            Thread t = new Thread(r, "order-sequencer-" + seq.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        stage = cfg.fixed ? Executors.newFixedThreadPool(stageThreads, tf) : Executors.newSingleThreadExecutor(tf);
    }

    /** The stage's work: sign the order (CPU only). */
    static String sign(Order o) throws NoSuchAlgorithmException {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] d = (o.traceId + o.payload).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int i = 0; i < ROUNDS; i++) {
            md.update(d);
            md.update((byte) i);
            d = md.digest();
        }
        StringBuilder sb = new StringBuilder(16);
        for (int i = 0; i < 8; i++) {
            sb.append(String.format("%02x", d[i]));
        }
        return sb.toString();
    }

    @Override
    public String handle(long n, Map<String, String> query) throws Exception {
        Order o = Order.of(n, query);
        Future<String> f = stage.submit(() -> sign(o));
        String sig = f.get();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("orderId", o.id);
        m.put("signature", sig);
        m.put("stageThreads", stageThreads);
        return Json.obj(m);
    }

    @Override
    public void stop() {
        if (stage != null) {
            stage.shutdownNow();
            try {
                stage.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "single-thread (fixed): the signing stage is a pool of " + Runtime.getRuntime().availableProcessors() + " threads (one per core)"
                : "single-thread: every request waits for the one order-sequencer thread (SHA-256 x" + ROUNDS + ", ~1 ms CPU)";
    }
}
