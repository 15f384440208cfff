package com.example.zoo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * queue-handoff: each request puts a settlement job on a bounded ArrayBlockingQueue (16 slots)
 * consumed by ONE consumer thread ("settlement-consumer-1") that spends ~10 ms per job (a
 * Thread.sleep standing for the ledger write) and hands the result back on a reply queue the
 * request thread takes from. Throughput is capped at 1 / 10 ms = 100/s; a thread dump shows
 * most http-nio-*-exec-* threads WAITING in ArrayBlockingQueue.put (the queue is full), the
 * others in ArrayBlockingQueue.take on their reply, and the consumer TIMED_WAITING in
 * Thread.sleep under Settlement.settle.
 *
 * <p>--fixed: 32 consumer threads take from the same queue.
 */
final class Settlement implements Scenario {
    static final long SETTLE_MS = 10;
    static final int QUEUE = 16;

    /** One job: the request's data and where its answer goes. */
    static final class Job {
        final String account;
        final long amount;
        final BlockingQueue<String> reply = new ArrayBlockingQueue<>(1);

        Job(String account, long amount) {
            this.account = account;
            this.amount = amount;
        }
    }

    private final Config cfg;
    private final BlockingQueue<Job> jobs = new ArrayBlockingQueue<>(QUEUE);
    private final List<Thread> consumers = new ArrayList<>();

    Settlement(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public void start() {
        int n = cfg.fixed ? 32 : 1;
        for (int i = 1; i <= n; i++) {
            Thread t = new Thread(this::consume, "settlement-consumer-" + i);
            t.setDaemon(true);
            t.start();
            consumers.add(t);
        }
    }

    private void consume() {
        try {
            while (true) {
                Job j = jobs.take();
                j.reply.put(settle(j));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The consumer's work: a ledger write that takes ~10 ms. */
    static String settle(Job j) throws InterruptedException {
        Thread.sleep(SETTLE_MS);
        return j.account + ":" + j.amount;
    }

    @Override
    public String handle(long n, Map<String, String> query) throws Exception {
        Job j = new Job(query.getOrDefault("account", "ACC-" + (n % 500)), 100 + n % 900);
        jobs.put(j);
        String receipt = j.reply.take();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("receipt", receipt);
        m.put("consumers", consumers.size());
        return Json.obj(m);
    }

    @Override
    public void stop() {
        for (Thread t : consumers) {
            t.interrupt();
        }
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "queue-handoff (fixed): " + consumers.size() + " settlement consumers take from the queue"
                : "queue-handoff: requests hand jobs over an ArrayBlockingQueue(" + QUEUE + ") to one settlement consumer (~" + SETTLE_MS + " ms per job): ~100/s at most";
    }
}
