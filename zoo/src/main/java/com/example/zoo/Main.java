package com.example.zoo;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.AbstractProtocol;
import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThreadFactory;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * tuneloop zoo: one embedded-Tomcat service whose GET /api reproduces one bottleneck of the
 * seeds (or its fix, with --fixed).
 *
 * <pre>java -jar zoo.jar --scenario sync-logging [--fixed] [--port 8080] [--threads 200]</pre>
 */
public final class Main {
    /** Scenario name -> factory. Order is the order of --list. */
    static final Map<String, Function<Config, Scenario>> SCENARIOS = new LinkedHashMap<>();
    static {
        SCENARIOS.put("healthy", Healthy::new);
        SCENARIOS.put("cpu-hot", PriceCalculator::new);
        SCENARIOS.put("sync-logging", OrderAuditLogback::new);
        SCENARIOS.put("sync-logging-sift", OrderAuditLogback::new);
        SCENARIOS.put("sync-logging-log4j2", OrderAuditLog4j2::new);
        SCENARIOS.put("deadlock", AccountService::new);
        SCENARIOS.put("pool-starvation", InventoryRepository::new);
        SCENARIOS.put("gc-pressure", ReportBuilder::new);
        SCENARIOS.put("fsync-io", Journal::new);
        SCENARIOS.put("single-thread", OrderSequencer::new);
        SCENARIOS.put("future-serial", QuoteService::new);
        SCENARIOS.put("permit-starvation", RateGate::new);
        SCENARIOS.put("queue-handoff", Settlement::new);
        SCENARIOS.put("remote-call", StockClient::new);
        SCENARIOS.put("startup-deadlock", StartupRegistry::new);
        SCENARIOS.put("delayed-ack", PlainHttpServer::new);
    }

    private Main() {}

    static void usage(PrintStream out) {
        out.println("usage: java -jar zoo.jar --scenario NAME [--fixed] [--port 8080] [--threads 200]");
        out.println("                         [--bind 127.0.0.1] [--log-dir /tmp/zoo-logs] [--data-dir /tmp/zoo-data]");
        out.println("                         [--deadlock-after 200] [--work-pct 100] [--list]");
        out.println("endpoints: GET /api (the scenario), GET /health (readiness), GET /info, GET|POST /stop");
        out.print("scenarios:");
        for (String s : SCENARIOS.keySet()) {
            out.print(" " + s);
        }
        out.println();
    }

    static void printList() {
        for (String s : SCENARIOS.keySet()) {
            System.out.println(s);
        }
    }

    public static void main(String[] args) throws Exception {
        Config cfg = Config.parse(args);
        Function<Config, Scenario> factory = SCENARIOS.get(cfg.scenario);
        if (factory == null) {
            System.err.println("zoo: unknown scenario " + cfg.scenario);
            usage(System.err);
            System.exit(2);
        }
        Files.createDirectories(cfg.logDir);
        Files.createDirectories(cfg.dataDir);
        // Logging is configured by system properties, before any logger exists.
        configureLogging(cfg);

        Scenario scenario = factory.apply(cfg);
        scenario.start();
        if (scenario.ownsHttp()) {
            Runtime.getRuntime().addShutdownHook(new Thread(scenario::stop, "zoo-shutdown"));
            System.out.printf("zoo: scenario=%s fixed=%s pid=%d threads=%d maxHeap=%dm java=%s%n",
                    cfg.scenario, cfg.fixed, ProcessHandle.current().pid(), cfg.threads,
                    Runtime.getRuntime().maxMemory() >> 20, System.getProperty("java.version"));
            System.out.println("zoo: " + scenario.describe());
            try {
                scenario.serve();
            } catch (IOException e) {
                System.err.println("zoo: cannot start the HTTP server: " + e);
                System.exit(1);
            }
            return;
        }

        Tomcat tomcat;
        try {
            tomcat = startTomcat(cfg, scenario);
        } catch (Exception e) {
            System.err.println("zoo: cannot start the HTTP server: " + e);
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Stop Tomcat and the scenario, but never wait more than 3 s: in the deadlock
            // scenario the stuck workers would hold the shutdown forever.
            Thread stopper = new Thread(() -> {
                try {
                    tomcat.stop();
                    tomcat.destroy();
                } catch (Exception ignored) {
                    // shutting down
                }
                scenario.stop();
            }, "zoo-stopper");
            stopper.setDaemon(true);
            stopper.start();
            try {
                stopper.join(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "zoo-shutdown"));

        System.out.printf("zoo: scenario=%s fixed=%s pid=%d threads=%d maxHeap=%dm java=%s%n",
                cfg.scenario, cfg.fixed, ProcessHandle.current().pid(), cfg.threads,
                Runtime.getRuntime().maxMemory() >> 20, System.getProperty("java.version"));
        System.out.println("zoo: " + scenario.describe());
        System.out.printf("zoo: listening on http://%s:%d/api%n", cfg.bind, localPort(tomcat));
        System.out.flush();
        tomcat.getServer().await();
    }

    private static int localPort(Tomcat tomcat) {
        int p = tomcat.getConnector().getLocalPort();
        return p > 0 ? p : tomcat.getConnector().getPort();
    }

    /**
     * Selects the logging configuration of the scenario through the standard system
     * properties (logback.configurationFile, log4j2.configurationFile) unless the user
     * already set them, and prints the effective files.
     */
    static void configureLogging(Config cfg) {
        System.setProperty("zoo.logDir", cfg.logDir.toString());
        String logback = "logback-quiet.xml";
        String log4j2 = "log4j2-quiet.xml";
        if (cfg.scenario.equals("sync-logging")) {
            logback = cfg.fixed ? "logback-async.xml" : "logback-sync.xml";
        } else if (cfg.scenario.equals("sync-logging-sift")) {
            logback = cfg.fixed ? "logback-sift-async.xml" : "logback-sift.xml";
        } else if (cfg.scenario.equals("sync-logging-log4j2")) {
            log4j2 = cfg.fixed ? "log4j2-async.xml" : "log4j2-sync.xml";
        }
        if (cfg.scenario.equals("sync-logging-log4j2") && cfg.fixed) {
            // The fix drops INFO events instead of blocking callers when the ring buffer is full.
            System.getProperties().putIfAbsent("log4j2.asyncQueueFullPolicy", "Discard");
            System.getProperties().putIfAbsent("log4j2.discardThreshold", "INFO");
        }
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", logback);
        }
        if (System.getProperty("log4j2.configurationFile") == null) {
            System.setProperty("log4j2.configurationFile", log4j2);
        }
        System.out.println("zoo: logback config: " + where(System.getProperty("logback.configurationFile")));
        System.out.println("zoo: log4j2 config:  " + where(System.getProperty("log4j2.configurationFile")));
        System.out.println("zoo: log dir:        " + cfg.logDir.toAbsolutePath());
    }

    private static String where(String name) {
        URL u = Main.class.getClassLoader().getResource(name);
        if (u != null) {
            return name + " (" + u + ")";
        }
        return name;
    }

    static Tomcat startTomcat(Config cfg, Scenario scenario) throws Exception {
        // Tomcat's base directory (work files), like a default Tomcat's tomcat.PORT: one per port,
        // reused across runs.
        Path base = Files.createDirectories(cfg.dataDir.resolve("tomcat." + cfg.port).toAbsolutePath());
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());

        Connector connector = new Connector("HTTP/1.1");
        connector.setPort(cfg.port);
        connector.setProperty("address", cfg.bind);
        connector.setProperty("acceptCount", "1000");
        connector.setProperty("maxConnections", "10000");
        connector.setProperty("maxKeepAliveRequests", "-1");
        // Tomcat's own worker pool, named as a default Tomcat names it: http-nio-8080-exec-N
        // (Tomcat adds the address to the name when one is set; we keep the common form).
        TaskQueue queue = new TaskQueue();
        TaskThreadFactory tf = new TaskThreadFactory("http-nio-" + cfg.port + "-exec-", true, Thread.NORM_PRIORITY);
        ThreadPoolExecutor executor = new ThreadPoolExecutor(Math.min(10, cfg.threads), cfg.threads, 60,
                TimeUnit.SECONDS, queue, tf);
        queue.setParent(executor);
        ((AbstractProtocol<?>) connector.getProtocolHandler()).setExecutor(executor);
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);

        Context ctx = tomcat.addContext("", base.toString());
        Tomcat.addServlet(ctx, "zoo", new ZooServlet(cfg, scenario));
        ctx.addServletMappingDecoded("/*", "zoo");
        tomcat.start();
        if (connector.getState() != LifecycleState.STARTED) {
            // Tomcat logs bind errors and carries on; a test service must fail instead.
            throw new IOException("connector failed to start on " + cfg.bind + ":" + cfg.port + " (port in use?)");
        }
        return tomcat;
    }

    /** The only servlet: /api runs the scenario. */
    static final class ZooServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient Config cfg;
        private final transient Scenario scenario;
        private final AtomicLong requests = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();

        ZooServlet(Config cfg, Scenario scenario) {
            this.cfg = cfg;
            this.scenario = scenario;
        }

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            doGet(req, resp);
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            String path = req.getRequestURI();
            switch (path) {
                case "/api":
                    api(req, resp);
                    return;
                case "/health":
                    write(resp, 200, "{\"status\":\"UP\",\"scenario\":\"" + cfg.scenario + "\"}");
                    return;
                case "/info":
                    write(resp, 200, String.format("{\"scenario\":\"%s\",\"fixed\":%s,\"pid\":%d,\"requests\":%d,\"errors\":%d}",
                            cfg.scenario, cfg.fixed, ProcessHandle.current().pid(), requests.get(), errors.get()));
                    return;
                case "/stop":
                    write(resp, 200, "{\"status\":\"stopping\"}");
                    Thread t = new Thread(() -> {
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException ignored) {
                            Thread.currentThread().interrupt();
                        }
                        System.exit(0);
                    }, "zoo-stop");
                    t.start();
                    return;
                default:
                    write(resp, 404, "{\"error\":\"not found\"}");
            }
        }

        private void api(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long n = requests.incrementAndGet();
            String body;
            int status = 200;
            try {
                body = scenario.handle(n, query(req.getQueryString()));
            } catch (Exception e) {
                errors.incrementAndGet();
                status = 500;
                body = "{\"error\":\"" + String.valueOf(e).replace('"', '\'') + "\"}";
            }
            write(resp, status, body);
        }

        private static void write(HttpServletResponse resp, int status, String body) throws IOException {
            resp.setStatus(status);
            resp.setContentType("application/json");
            resp.setCharacterEncoding("UTF-8");
            resp.getWriter().write(body);
        }

        static Map<String, String> query(String qs) {
            Map<String, String> m = new HashMap<>();
            if (qs == null || qs.isEmpty()) {
                return m;
            }
            for (String kv : qs.split("&")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    m.put(kv.substring(0, eq), kv.substring(eq + 1));
                } else if (!kv.isEmpty()) {
                    m.put(kv, "");
                }
            }
            return m;
        }
    }
}
