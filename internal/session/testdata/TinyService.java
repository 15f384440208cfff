// TinyService is the service the session tests start with `run --start`:
// an HTTP server on 127.0.0.1:PORT (com.sun.net.httpserver) that answers
// "ok" after a little work, writes its pid to PIDFILE once it listens, and
// has a shutdown hook that takes 300 ms and then writes PIDFILE.stopped
// (proof of a graceful stop). Run: java TinyService.java PORT PIDFILE
// [deadlock]; with "deadlock" two threads deadlock at start and every
// request queues behind their lock: a service that never answers. A GET
// of /deadlock does the same at that moment: a service that stops answering.
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;

public class TinyService {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path pidFile = Path.of(args[1]);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        if (args.length > 2 && args[2].equals("deadlock")) {
            startDeadlock();
        }
        server.createContext("/deadlock", ex -> {
            try {
                startDeadlock();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.createContext("/", ex -> {
            if (locked) {
                synchronized (LOCK_A) { // held by a deadlocked thread: never returns
                    ex.close();
                }
            }
            long x = 0;
            for (int i = 0; i < 20000; i++) {
                x += i * 31L;
            }
            byte[] body = ("ok " + (x & 1) + "\n").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        });
        server.setExecutor(Executors.newFixedThreadPool(4));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Thread.sleep(300);
                Files.writeString(Path.of(args[1] + ".stopped"), "stopped\n");
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        server.start();
        Files.writeString(pidFile, Long.toString(ProcessHandle.current().pid()));
        System.out.println("READY on " + port);
        System.out.flush();
    }

    static volatile boolean locked;
    static final Object LOCK_A = new Object();
    static final Object LOCK_B = new Object();

    static void startDeadlock() throws InterruptedException {
        java.util.concurrent.CountDownLatch both = new java.util.concurrent.CountDownLatch(2);
        Thread a = new Thread(() -> {
            synchronized (LOCK_A) {
                both.countDown();
                awaitQuietly(both);
                synchronized (LOCK_B) {
                    System.out.println("never");
                }
            }
        }, "ledger-writer");
        Thread b = new Thread(() -> {
            synchronized (LOCK_B) {
                both.countDown();
                awaitQuietly(both);
                synchronized (LOCK_A) {
                    System.out.println("never");
                }
            }
        }, "audit-flusher");
        a.setDaemon(true);
        b.setDaemon(true);
        a.start();
        b.start();
        both.await();
        locked = true;
    }

    static void awaitQuietly(java.util.concurrent.CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
