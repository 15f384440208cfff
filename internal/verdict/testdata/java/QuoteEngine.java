import com.sun.net.httpserver.*;
import java.io.*;
import java.net.InetSocketAddress;
import java.util.*;
import java.util.concurrent.*;

// A quote engine whose handler prices a basket by simulation: pure CPU work per request.
public class QuoteEngine {
    static double price(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] paths = new double[4000];
        for (int i = 0; i < paths.length; i++) {
            double s = 100;
            for (int step = 0; step < 60; step++) {
                s *= 1 + 0.01 * (r.nextDouble() - 0.5);
            }
            paths[i] = Math.max(0, s - 100);
        }
        Arrays.sort(paths);
        return paths[paths.length / 2];
    }

    public static void main(String[] a) throws Exception {
        int port = Integer.parseInt(a[0]);
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 256);
        s.createContext("/quote", ex -> {
            double p = price(System.nanoTime());
            byte[] b = ("{\"price\":" + p + "}").getBytes();
            ex.sendResponseHeaders(200, b.length);
            try (OutputStream o = ex.getResponseBody()) { o.write(b); }
        });
        s.createContext("/health", ex -> { ex.sendResponseHeaders(200, 2); try (OutputStream o = ex.getResponseBody()) { o.write("ok".getBytes()); } });
        s.setExecutor(Executors.newFixedThreadPool(64));
        s.start();
    }
}
