package org.tally.platform;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * What every back-office service shares: its flags ({@code --port N}, PORT in the environment,
 * default 8080; {@code --fixed}), an HttpServer on 127.0.0.1 with GET /health, and a clean stop on
 * SIGTERM.
 */
public final class ServiceMain {
    public final int port;
    public final boolean fixed;
    public final HttpServer server;

    private ServiceMain(int port, boolean fixed, HttpServer server) {
        this.port = port;
        this.fixed = fixed;
        this.server = server;
    }

    public static ServiceMain parse(String name, String[] args) throws IOException {
        // The JDK server writes a response's headers and body separately; without TCP_NODELAY the body
        // waits for the client's delayed ACK (~40 ms a response). Read once, before any server exists.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        boolean fixed = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port": port = Integer.parseInt(args[++i]); break;
                case "--fixed": fixed = true; break;
                default:
                    System.err.println(name + ": unknown flag " + args[i] + " (flags: --port N, --fixed)");
                    System.exit(2);
            }
        }
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 256);
        server.createContext("/health", ex -> reply(ex, 200, "ok\n"));
        return new ServiceMain(port, fixed, server);
    }

    /** Starts the server, prints where it listens and blocks until SIGTERM (or SIGINT). */
    public void serve(String name, Runnable onStop) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop(0);
            if (onStop != null) {
                onStop.run();
            }
            stopped.countDown();
        }, name + "-shutdown"));
        server.start();
        System.out.printf("%s listening on 127.0.0.1:%d (fixed=%s, pid %d)%n", name, port, fixed, ProcessHandle.current().pid());
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", body.startsWith("{") ? "application/json" : "text/plain");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    /** The value of a query parameter, or def. */
    public static String param(HttpExchange ex, String name, String def) {
        String q = ex.getRequestURI().getRawQuery();
        if (q != null) {
            for (String kv : q.split("&")) {
                int eq = kv.indexOf('=');
                if (eq > 0 && kv.substring(0, eq).equals(name)) {
                    return java.net.URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
                }
            }
        }
        return def;
    }
}
