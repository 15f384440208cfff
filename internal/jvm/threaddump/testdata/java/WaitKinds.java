// WaitKinds: one JVM per wait kind of the wait-for graph, plain JDK only.
// Run: java WaitKinds.java MODE [seconds-to-live]; prints READY <pid> once
// the scenario is in place. Request threads are a 24-thread pool named like
// Tomcat's ("http-nio-8080-exec-N") looping over a "request".
//
//   idle        an idle application: Timers, a scheduled pool, an idle fixed
//               pool, an idle ForkJoinPool and the common pool, a ServerSocket
//               acceptor, an NIO selector, Object.wait worker loops on a
//               LinkedList, a thread in Thread.join, main in Thread.sleep
//   executor    requests wait on futures (CompletableFuture.get and
//               Future.get) completed by a pool "serial-stage" of one worker
//               whose task sleeps 20 ms: a serial stage
//   permits     requests wait for a Semaphore(2) whose holders sleep 50 ms
//   queue       requests put into an ArrayBlockingQueue(4) drained by one
//               consumer "order-writer" that sleeps 50 ms per item
//   handoff     requests hand a job to a 1-thread "ledger" worker through a
//               queue and wait for the reply in SynchronousQueue.take
//   downstream  requests read from a local server that accepts and never answers
import java.io.*;
import java.net.*;
import java.nio.channels.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;

public class WaitKinds {
    static final int REQUEST_THREADS = 24;

    static ThreadPoolExecutor requestPool() {
        AtomicInteger n = new AtomicInteger();
        return new ThreadPoolExecutor(REQUEST_THREADS, REQUEST_THREADS, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
            r -> new Thread(r, "http-nio-8080-exec-" + n.incrementAndGet()));
    }

    static ExecutorService named(int n, String prefix) {
        AtomicInteger c = new AtomicInteger();
        return Executors.newFixedThreadPool(n, r -> new Thread(r, prefix + "-" + c.incrementAndGet()));
    }

    static void sleep(long ms) {
        try { Thread.sleep(ms); } catch (InterruptedException e) { throw new RuntimeException(e); }
    }

    // Each "request" loops forever, as a server under a closed-model load does.
    static void serve(ThreadPoolExecutor pool, Runnable request) {
        for (int i = 0; i < REQUEST_THREADS; i++) {
            pool.execute(() -> { while (true) request.run(); });
        }
    }

    static class Enrich {
        // The serial stage: ~20 ms of a slow call per task.
        static String lookup(int id) { sleep(20); return "v" + id; }
    }

    static class OrderController {
        final ExecutorService stage = named(1, "serial-stage");
        final AtomicInteger ids = new AtomicInteger();
        void handle() {
            int id = ids.incrementAndGet();
            try {
                if (id % 3 == 0) {
                    stage.submit(() -> Enrich.lookup(id)).get();
                } else {
                    CompletableFuture.supplyAsync(() -> Enrich.lookup(id), stage).get();
                }
            } catch (Exception e) { throw new RuntimeException(e); }
        }
    }

    static class ReportService {
        final Semaphore backendPermits = new Semaphore(2);
        void handle() {
            try { backendPermits.acquire(); } catch (InterruptedException e) { return; }
            try { callBackend(); } finally { backendPermits.release(); }
        }
        void callBackend() { sleep(50); }
    }

    static class AuditLog {
        final BlockingQueue<String> queue = new ArrayBlockingQueue<>(4);
        void start() {
            Thread t = new Thread(() -> {
                while (true) {
                    try { write(queue.take()); } catch (InterruptedException e) { return; }
                }
            }, "order-writer");
            t.setDaemon(true); t.start();
        }
        void write(String s) { sleep(50); }
        void record(String s) {
            try { queue.put(s); } catch (InterruptedException e) { throw new RuntimeException(e); }
        }
    }

    static class Ledger {
        record Job(int id, SynchronousQueue<String> reply) { }
        final BlockingQueue<Job> jobs = new LinkedBlockingQueue<>();
        final AtomicInteger ids = new AtomicInteger();
        void start() {
            Thread t = new Thread(() -> {
                while (true) {
                    try {
                        Job j = jobs.take();
                        j.reply().put(post(j.id()));
                    } catch (InterruptedException e) { return; }
                }
            }, "ledger");
            t.setDaemon(true); t.start();
        }
        String post(int id) { sleep(20); return "ok" + id; }
        String handle() {
            SynchronousQueue<String> reply = new SynchronousQueue<>();
            try {
                jobs.put(new Job(ids.incrementAndGet(), reply));
                return reply.take();
            } catch (InterruptedException e) { throw new RuntimeException(e); }
        }
    }

    static class PriceClient {
        final int port;
        PriceClient(int port) { this.port = port; }
        int fetch() {
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.getOutputStream().write("GET /price\n".getBytes());
                return s.getInputStream().read(); // the server never answers
            } catch (IOException e) { throw new UncheckedIOException(e); }
        }
    }

    // Legacy worker loop: Object.wait on a LinkedList until a job arrives.
    static class LegacyWorker implements Runnable {
        static final LinkedList<Runnable> jobs = new LinkedList<>();
        public void run() {
            while (true) {
                Runnable r;
                synchronized (jobs) {
                    while (jobs.isEmpty()) {
                        try { jobs.wait(); } catch (InterruptedException e) { return; }
                    }
                    r = jobs.removeFirst();
                }
                r.run();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "idle";
        int ttl = args.length > 1 ? Integer.parseInt(args[1]) : 120;
        Thread killer = new Thread(() -> {
            try { Thread.sleep(ttl * 1000L); } catch (InterruptedException e) { }
            System.exit(0);
        }, "ttl");
        killer.setDaemon(true); killer.start();

        switch (mode) {
            case "idle" -> idle();
            case "executor" -> { OrderController c = new OrderController(); serve(requestPool(), c::handle); }
            case "permits" -> { ReportService s = new ReportService(); serve(requestPool(), s::handle); }
            case "queue" -> { AuditLog a = new AuditLog(); a.start(); serve(requestPool(), () -> a.record("order")); }
            case "handoff" -> { Ledger l = new Ledger(); l.start(); serve(requestPool(), l::handle); }
            case "downstream" -> {
                ServerSocket silent = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
                Thread acc = new Thread(() -> {
                    List<Socket> held = new ArrayList<>();
                    while (true) {
                        try { held.add(silent.accept()); } catch (IOException e) { return; }
                    }
                }, "silent-server");
                acc.setDaemon(true); acc.start();
                PriceClient p = new PriceClient(silent.getLocalPort());
                serve(requestPool(), p::fetch);
            }
            default -> throw new IllegalArgumentException(mode);
        }
        Thread.sleep(1500);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        if (mode.equals("idle")) {
            Thread.sleep(ttl * 1000L); // main parked for the life of the app
        } else {
            Thread.currentThread().join();
        }
    }

    static void idle() throws Exception {
        Timer t1 = new Timer("cache-expiry-timer", true);
        t1.schedule(new TimerTask() { public void run() { } }, 3_600_000L);
        Timer t2 = new Timer("metrics-timer", true);
        t2.scheduleAtFixedRate(new TimerTask() { public void run() { } }, 3_600_000L, 3_600_000L);
        ScheduledExecutorService sched = Executors.newScheduledThreadPool(2, r -> { Thread t = new Thread(r, "scheduling-" + r.hashCode() % 10); t.setDaemon(true); return t; });
        sched.scheduleAtFixedRate(() -> { }, 1, 3600, TimeUnit.SECONDS);
        ThreadPoolExecutor workers = requestPool();
        workers.prestartAllCoreThreads();
        ForkJoinPool fj = new ForkJoinPool(4);
        fj.submit(() -> List.of(1, 2, 3, 4, 5, 6, 7, 8).parallelStream().mapToInt(i -> i * i).sum()).get();
        for (int i = 0; i < 8; i++) fj.submit(() -> sleep(10));
        CompletableFuture.runAsync(() -> sleep(10)).get();
        List.of(1, 2, 3, 4, 5, 6, 7, 8).parallelStream().forEach(i -> sleep(5));
        ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (true) {
                try { ss.accept().close(); } catch (IOException e) { return; }
            }
        }, "http-nio-8080-Acceptor");
        acceptor.setDaemon(true); acceptor.start();
        Selector sel = Selector.open();
        Thread poller = new Thread(() -> {
            while (true) {
                try { sel.select(); } catch (IOException e) { return; }
            }
        }, "http-nio-8080-Poller");
        poller.setDaemon(true); poller.start();
        for (int i = 1; i <= 3; i++) {
            Thread w = new Thread(new LegacyWorker(), "legacy-worker-" + i);
            w.setDaemon(true); w.start();
        }
        Thread joiner = new Thread(() -> {
            try { acceptor.join(); } catch (InterruptedException e) { }
        }, "shutdown-waiter");
        joiner.setDaemon(true); joiner.start();
    }
}
