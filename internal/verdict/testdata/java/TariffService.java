import com.sun.net.httpserver.*;
import java.io.*;
import java.net.InetSocketAddress;
import java.util.concurrent.*;

// A tariff lookup whose rate table is rebuilt under a class-wide lock on every call.
public class TariffService {
    static long[] table = new long[4096];

    static synchronized long rate(int zone) {
        long h = zone;
        for (int r = 0; r < 40; r++) {
            for (int i = 0; i < table.length; i++) {
                h = h * 31 + (table[i] ^ (i + r));
                table[i] = h >>> 7;
            }
        }
        return h;
    }

    public static void main(String[] a) throws Exception {
        int port = Integer.parseInt(a[0]);
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 128);
        s.createContext("/tariff", ex -> {
            long v = rate((int) (System.nanoTime() & 63));
            byte[] b = ("{\"rate\":" + v + "}").getBytes();
            ex.sendResponseHeaders(200, b.length);
            try (OutputStream o = ex.getResponseBody()) { o.write(b); }
        });
        s.createContext("/health", ex -> { ex.sendResponseHeaders(200, 2); try (OutputStream o = ex.getResponseBody()) { o.write("ok".getBytes()); } });
        s.setExecutor(Executors.newFixedThreadPool(32));
        s.start();
    }
}
