package com.example.zoo;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * startup-deadlock: the service deadlocks while it starts, before the HTTP server is up, as an
 * application context does when two initialisers take two locks in opposite orders. The main
 * thread loads the configuration (locks the ConfigRegistry monitor) and then registers its
 * metrics (the MetricsRegistry monitor); the "metrics-init" thread, started just before, locks
 * MetricsRegistry and then reads the configuration. Both hold one and wait for the other:
 * /api and /health never answer (the port is never opened). `jcmd PID Thread.print` reports
 * "Found one Java-level deadlock" between main and metrics-init.
 *
 * <p>--fixed: both take the locks in the same order (configuration, then metrics).
 */
final class StartupRegistry implements Scenario {
    /** The configuration every component reads at start-up. */
    static final class ConfigRegistry {
        final Map<String, String> props = new HashMap<>();
    }

    /** The metrics every component registers at start-up. */
    static final class MetricsRegistry {
        final Map<String, Long> gauges = new HashMap<>();
    }

    private final Config cfg;
    private final ConfigRegistry config = new ConfigRegistry();
    private final MetricsRegistry metrics = new MetricsRegistry();

    StartupRegistry(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public void start() throws InterruptedException {
        // The latches only make the bad interleaving certain (each side holds its first lock
        // before either asks for its second); they are released before the second locks.
        CountDownLatch configHeld = new CountDownLatch(1);
        CountDownLatch metricsHeld = new CountDownLatch(1);
        boolean ordered = cfg.fixed;
        Thread init = new Thread(() -> {
            try {
                if (ordered) {
                    configHeld.await();
                    registerMetricsOrdered();
                } else {
                    registerMetrics(metricsHeld, configHeld);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "metrics-init");
        init.setDaemon(true);
        init.start();
        System.out.println("zoo: start-up: loading configuration and metrics");
        System.out.flush();
        loadConfig(configHeld, ordered ? null : metricsHeld);
        init.join();
        System.out.println("zoo: start-up: done");
    }

    /** main: configuration first, then the metrics it publishes. */
    private void loadConfig(CountDownLatch configHeld, CountDownLatch metricsHeld) throws InterruptedException {
        synchronized (config) {
            config.props.put("pricing.currency", "CNY");
            configHeld.countDown();
            if (metricsHeld != null) {
                metricsHeld.await();
            }
            synchronized (metrics) {
                metrics.gauges.put("config.size", (long) config.props.size());
            }
        }
    }

    /** metrics-init (broken): metrics first, then the configuration it reads. */
    private void registerMetrics(CountDownLatch metricsHeld, CountDownLatch configHeld) throws InterruptedException {
        synchronized (metrics) {
            metrics.gauges.put("jvm.threads", (long) Thread.activeCount());
            metricsHeld.countDown();
            configHeld.await();
            synchronized (config) {
                metrics.gauges.put("config.size", (long) config.props.size());
            }
        }
    }

    /** metrics-init (fixed): the same work with the locks in the global order. */
    private void registerMetricsOrdered() {
        synchronized (config) {
            synchronized (metrics) {
                metrics.gauges.put("jvm.threads", (long) Thread.activeCount());
                metrics.gauges.put("config.size", (long) config.props.size());
            }
        }
    }

    @Override
    public String handle(long n, Map<String, String> query) {
        Map<String, Object> m = new LinkedHashMap<>();
        synchronized (config) {
            m.put("currency", config.props.get("pricing.currency"));
        }
        synchronized (metrics) {
            m.put("gauges", metrics.gauges.size());
        }
        m.put("request", n);
        return Json.obj(m);
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "startup-deadlock (fixed): start-up takes the configuration and metrics locks in one order"
                : "startup-deadlock: main and metrics-init take two locks in opposite orders at start-up (never ready)";
    }
}
