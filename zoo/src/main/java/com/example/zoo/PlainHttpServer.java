package com.example.zoo;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * delayed-ack: a service whose HTTP endpoint is a small blocking ServerSocket server (as many
 * in-house and legacy services have), not Tomcat: Tomcat turns TCP_NODELAY on, this server
 * leaves Nagle's algorithm on (the socket default) and writes each /api response in two writes,
 * the headers and then the body. The body waits behind Nagle until the client ACKs the headers,
 * and the client delays that ACK (~40 ms on Linux) because it has nothing to send: every request
 * takes ~40 ms with idle CPUs and idle threads (the handlers are in socket writes or waiting for
 * the next request), and TcpExt DelayedACKs rises about once per request.
 *
 * <p>--fixed: the headers and body go out in one write.
 *
 * <p>HTTP/1.1 with keep-alive, Content-Length bodies, one handler thread per connection
 * ("http-bio-PORT-exec-N", at most --threads); GET /api, /health, /info, /stop as in Tomcat.
 */
final class PlainHttpServer implements Scenario {
    private final Config cfg;
    private final AtomicLong requests = new AtomicLong();
    private ServerSocket server;
    private ThreadPoolExecutor handlers;

    PlainHttpServer(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public boolean ownsHttp() {
        return true;
    }

    @Override
    public void serve() throws IOException {
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getByName(cfg.bind), cfg.port), 1000);
        AtomicInteger seq = new AtomicInteger();
        handlers = new ThreadPoolExecutor(cfg.threads, cfg.threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "http-bio-" + cfg.port + "-exec-" + seq.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        handlers.allowCoreThreadTimeOut(true);
        System.out.printf("zoo: listening on http://%s:%d/api%n", cfg.bind, server.getLocalPort());
        System.out.flush();
        while (!server.isClosed()) {
            Socket s;
            try {
                s = server.accept();
            } catch (SocketException e) {
                return; // closed by stop()
            }
            // The socket default, said out loud: Nagle on (Tomcat would set TCP_NODELAY).
            s.setTcpNoDelay(false);
            handlers.execute(() -> connection(s));
        }
    }

    /** One keep-alive connection: requests until the client closes. */
    private void connection(Socket s) {
        try (s) {
            InputStream in = new BufferedInputStream(s.getInputStream(), 8192);
            OutputStream out = s.getOutputStream(); // unbuffered: one write() per call
            while (true) {
                String line = readLine(in);
                if (line == null) {
                    return;
                }
                if (line.isEmpty()) {
                    continue;
                }
                String[] parts = line.split(" ");
                String target = parts.length > 1 ? parts[1] : "/";
                Map<String, String> headers = new HashMap<>();
                String h;
                while ((h = readLine(in)) != null && !h.isEmpty()) {
                    int c = h.indexOf(':');
                    if (c > 0) {
                        headers.put(h.substring(0, c).trim().toLowerCase(Locale.ROOT), h.substring(c + 1).trim());
                    }
                }
                if (h == null) {
                    return;
                }
                long len = Long.parseLong(headers.getOrDefault("content-length", "0"));
                for (long i = 0; i < len; i++) {
                    if (in.read() < 0) {
                        return;
                    }
                }
                boolean close = "close".equalsIgnoreCase(headers.get("connection"));
                respond(target, out, close);
                if (close) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the client went away or sent garbage: drop the connection
        }
    }

    private void respond(String target, OutputStream out, boolean close) throws IOException {
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        int status = 200;
        String body;
        boolean api = false;
        switch (path) {
            case "/api":
                api = true;
                try {
                    body = handle(requests.incrementAndGet(), Main.ZooServlet.query(q < 0 ? null : target.substring(q + 1)));
                } catch (Exception e) {
                    status = 500;
                    body = "{\"error\":\"internal\"}";
                }
                break;
            case "/health":
                body = "{\"status\":\"UP\",\"scenario\":\"" + cfg.scenario + "\"}";
                break;
            case "/info":
                body = String.format("{\"scenario\":\"%s\",\"fixed\":%s,\"pid\":%d,\"requests\":%d,\"errors\":0}",
                        cfg.scenario, cfg.fixed, ProcessHandle.current().pid(), requests.get());
                break;
            case "/stop":
                body = "{\"status\":\"stopping\"}";
                Thread t = new Thread(() -> {
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException ignored) {
                        Thread.currentThread().interrupt();
                    }
                    System.exit(0);
                }, "zoo-stop");
                t.start();
                break;
            default:
                status = 404;
                body = "{\"error\":\"not found\"}";
        }
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + (status == 200 ? " OK" : status == 404 ? " Not Found" : " Internal Server Error") + "\r\n"
                + "Content-Type: application/json;charset=UTF-8\r\n"
                + "Content-Length: " + b.length + "\r\n"
                + (close ? "Connection: close\r\n" : "")
                + "\r\n";
        byte[] hb = head.getBytes(StandardCharsets.US_ASCII);
        if (api && !cfg.fixed) {
            // The bug: two small writes with Nagle on. The second waits for the ACK of the first.
            out.write(hb);
            out.write(b);
        } else {
            byte[] all = new byte[hb.length + b.length];
            System.arraycopy(hb, 0, all, 0, hb.length);
            System.arraycopy(b, 0, all, hb.length, b.length);
            out.write(all);
        }
    }

    /** A CRLF (or LF) terminated ASCII line without its terminator; null at end of stream. */
    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder(64);
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                int n = sb.length();
                if (n > 0 && sb.charAt(n - 1) == '\r') {
                    sb.setLength(n - 1);
                }
                return sb.toString();
            }
            if (sb.length() > 8192) {
                throw new IOException("header line too long");
            }
            sb.append((char) c);
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    @Override
    public String handle(long n, Map<String, String> query) {
        String sku = query.getOrDefault("sku", "SKU-" + (n % 100));
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("sku", sku);
        m.put("priceCents", 1000 + Math.floorMod(sku.hashCode(), 9000));
        m.put("request", n);
        return Json.obj(m);
    }

    @Override
    public void stop() {
        try {
            if (server != null) {
                server.close();
            }
        } catch (IOException ignored) {
            // shutting down
        }
        if (handlers != null) {
            handlers.shutdownNow();
        }
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "delayed-ack (fixed): a plain ServerSocket HTTP server writes each response in one write"
                : "delayed-ack: a plain ServerSocket HTTP server (Nagle on) writes headers and body in two writes: ~40 ms per request (delayed ACK)";
    }
}
