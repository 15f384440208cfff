// Contention: one contended monitor held by a sleeping thread, a contended
// Collections.synchronizedMap, idle pool workers, and hostile thread names.
// Run: java Contention.java [seconds-to-live]; prints READY when the state is set.
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;

public class Contention {
    static final Object ORDER_LOCK = new Object();

    static class OrderService {
        // Holder keeps the monitor while "talking to the database".
        void placeOrder() {
            synchronized (ORDER_LOCK) {
                try { Thread.sleep(600_000); } catch (InterruptedException e) { }
            }
        }
        void lookup() {
            synchronized (ORDER_LOCK) { Thread.onSpinWait(); }
        }
    }

    public static void main(String[] args) throws Exception {
        int ttl = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        Thread killer = new Thread(() -> { try { Thread.sleep(ttl * 1000L); } catch (InterruptedException e) { } System.exit(0); }, "ttl");
        killer.setDaemon(true); killer.start();

        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(24, 24, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
            r -> new Thread(r, "http-nio-8080-exec-" + n.incrementAndGet()));
        pool.prestartAllCoreThreads(); // 4 stay idle in LinkedBlockingQueue.take
        OrderService svc = new OrderService();
        CountDownLatch held = new CountDownLatch(1);
        pool.execute(() -> { held.countDown(); svc.placeOrder(); });
        held.await();
        Thread.sleep(200);
        for (int i = 0; i < 19; i++) pool.execute(svc::lookup);

        // A synchronized collection held by one thread, wanted by five.
        Map<String, String> cache = Collections.synchronizedMap(new HashMap<>());
        Thread cacheHolder = new Thread(() -> {
            synchronized (cache) { try { Thread.sleep(600_000); } catch (InterruptedException e) { } }
        }, "cache-refresher");
        cacheHolder.start();
        Thread.sleep(100);
        for (int i = 0; i < 5; i++) {
            new Thread(() -> cache.get("k"), "cache-reader-" + i).start();
        }

        // Hostile names: quotes, HTML, a newline, CJK.
        String[] names = {"evil \"quoted\" <b>html</b> & 'x'", "line1\nline2 \"fake\" #99 prio=5", "订单处理-线程-1", "tab\there"};
        for (String nm : names) {
            Thread t = new Thread(() -> { try { Thread.sleep(600_000); } catch (InterruptedException e) { } }, nm);
            t.setDaemon(true); t.start();
        }
        Thread.sleep(500);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(ttl * 1000L);
    }
}
