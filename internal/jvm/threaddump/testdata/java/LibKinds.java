// LibKinds: the catalogue's library mechanisms reproduced with the real
// libraries (jars from the local Maven repository, see gen_libkinds.sh).
// Run: java -cp JARS LibKinds.java MODE [seconds-to-live]; prints READY <pid>
// once 8 request threads ("http-nio-8080-exec-N") loop over the work.
//
//   httpclient4  Apache HttpClient 4.5 with a pooling manager of 2 connections per
//                route, calling a local server ("stock-remote") that answers in 100 ms
//   httpclient5  the same with Apache HttpClient 5 (classic API)
//   jackson      a new ObjectMapper per request, a map written and read back
//   reactor      Mono.block() on a Mono that one single-thread scheduler completes
//                after 20 ms of work
//   callerdata   logback through an AsyncAppender with includeCallerData=true (the
//                caller's thread computes the caller data), pattern with %file:%line
import java.io.*;
import java.net.*;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;

public class LibKinds {
    static final int REQUEST_THREADS = 8;
    static volatile Object sink;
    static int port;
    static org.apache.http.impl.client.CloseableHttpClient client4;
    static org.apache.hc.client5.http.impl.classic.CloseableHttpClient client5;
    static reactor.core.scheduler.Scheduler single;
    static org.slf4j.Logger logger;

    // logback configured in code: an AsyncAppender that takes the caller data
    // on the calling thread, in front of a file appender printing it.
    static void logback() {
        var ctx = (ch.qos.logback.classic.LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
        ctx.reset();
        var enc = new ch.qos.logback.classic.encoder.PatternLayoutEncoder();
        enc.setContext(ctx);
        enc.setPattern("%d %-5level [%thread] %logger %file:%line %method - %msg%n");
        enc.start();
        var file = new ch.qos.logback.core.FileAppender<ch.qos.logback.classic.spi.ILoggingEvent>();
        file.setContext(ctx);
        file.setFile(System.getProperty("java.io.tmpdir") + "/libkinds-callerdata.log");
        file.setEncoder(enc);
        file.setImmediateFlush(false);
        file.start();
        var async = new ch.qos.logback.classic.AsyncAppender();
        async.setContext(ctx);
        async.setIncludeCallerData(true);
        async.setNeverBlock(true);
        async.setQueueSize(8192);
        async.addAppender(file);
        async.start();
        var root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(ch.qos.logback.classic.Level.INFO);
        root.addAppender(async);
        logger = org.slf4j.LoggerFactory.getLogger("orders");
    }

    // A keep-alive HTTP server that answers every request after 100 ms.
    static void server() throws IOException {
        ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        port = ss.getLocalPort();
        AtomicInteger n = new AtomicInteger();
        Thread acceptor = new Thread(() -> {
            while (true) {
                try {
                    Socket s = ss.accept();
                    Thread h = new Thread(() -> serve(s), "stock-remote-" + n.incrementAndGet());
                    h.setDaemon(true);
                    h.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "stock-remote-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static void serve(Socket s) {
        try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
             OutputStream out = s.getOutputStream()) {
            while (true) {
                String line = in.readLine();
                if (line == null) {
                    return;
                }
                while (!(line = in.readLine()).isEmpty()) {
                    // headers
                }
                Thread.sleep(100);
                byte[] body = "{\"stock\":42}".getBytes(StandardCharsets.ISO_8859_1);
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(body);
                out.flush();
            }
        } catch (Exception e) {
            // the client went away
        }
    }

    static void request(String mode, int n) throws Exception {
        switch (mode) {
            case "httpclient4" -> {
                try (var resp = client4.execute(new org.apache.http.client.methods.HttpGet("http://127.0.0.1:" + port + "/stock/" + n))) {
                    sink = org.apache.http.util.EntityUtils.toString(resp.getEntity());
                }
            }
            case "httpclient5" -> {
                try (var resp = client5.execute(new org.apache.hc.client5.http.classic.methods.HttpGet("http://127.0.0.1:" + port + "/stock/" + n))) {
                    sink = org.apache.hc.core5.http.io.entity.EntityUtils.toString(resp.getEntity());
                }
            }
            case "jackson" -> {
                var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
                Map<String, Object> order = new LinkedHashMap<>();
                order.put("id", n);
                order.put("items", List.of(Map.of("sku", "A-" + n, "qty", 2), Map.of("sku", "B-" + n, "qty", 1)));
                order.put("note", "deliver to the back door");
                String json = mapper.writeValueAsString(order);
                sink = mapper.readValue(json, Map.class);
            }
            case "callerdata" -> logger.info("order {} placed for {}", n, "customer-" + (n % 100));
            case "reactor" -> sink = reactor.core.publisher.Mono.fromCallable(() -> work(n)).subscribeOn(single).block(Duration.ofSeconds(30));
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    static long work(int n) {
        long end = System.nanoTime() + 20_000_000L, x = n;
        while (System.nanoTime() < end) {
            x = x * 31 + 7;
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        long live = args.length > 1 ? Long.parseLong(args[1]) : 60;
        switch (mode) {
            case "httpclient4" -> {
                server();
                var cm = new org.apache.http.impl.conn.PoolingHttpClientConnectionManager();
                cm.setDefaultMaxPerRoute(2);
                client4 = org.apache.http.impl.client.HttpClients.custom().setConnectionManager(cm).build();
            }
            case "httpclient5" -> {
                server();
                var cm = new org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager();
                cm.setDefaultMaxPerRoute(2);
                client5 = org.apache.hc.client5.http.impl.classic.HttpClients.custom().setConnectionManager(cm).build();
            }
            case "reactor" -> single = reactor.core.scheduler.Schedulers.newSingle("pricing");
            case "callerdata" -> logback();
            default -> {
            }
        }
        AtomicInteger names = new AtomicInteger(), count = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(REQUEST_THREADS,
            r -> new Thread(r, "http-nio-8080-exec-" + names.incrementAndGet()));
        for (int t = 0; t < REQUEST_THREADS; t++) {
            pool.submit(() -> {
                while (true) {
                    try {
                        request(mode, count.incrementAndGet());
                    } catch (Exception e) {
                        e.printStackTrace();
                        Thread.sleep(100);
                    }
                }
            });
        }
        Thread.sleep(1500);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(live * 1000);
        System.exit(0);
    }
}
