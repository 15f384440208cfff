// Deadlock: two threads deadlocked on ReentrantLocks and two on monitors.
// Run: java Deadlock.java [seconds-to-live]; prints READY when both cycles exist.
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

public class Deadlock {
    static final ReentrantLock ACCOUNT_A = new ReentrantLock();
    static final ReentrantLock ACCOUNT_B = new ReentrantLock();
    static final Object INVENTORY = new Object();
    static final Object LEDGER = new Object();

    static void transfer(ReentrantLock first, ReentrantLock second, CountDownLatch both) {
        first.lock();
        try {
            both.countDown();
            try { both.await(); } catch (InterruptedException e) { return; }
            second.lock();
            try { } finally { second.unlock(); }
        } finally { first.unlock(); }
    }

    static void reserve(Object first, Object second, CountDownLatch both) {
        synchronized (first) {
            both.countDown();
            try { both.await(); } catch (InterruptedException e) { return; }
            synchronized (second) { Thread.onSpinWait(); }
        }
    }

    public static void main(String[] args) throws Exception {
        int ttl = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        Thread killer = new Thread(() -> { try { Thread.sleep(ttl * 1000L); } catch (InterruptedException e) { } System.exit(0); }, "ttl");
        killer.setDaemon(true); killer.start();
        CountDownLatch juc = new CountDownLatch(2), mon = new CountDownLatch(2);
        new Thread(() -> transfer(ACCOUNT_A, ACCOUNT_B, juc), "transfer-1").start();
        new Thread(() -> transfer(ACCOUNT_B, ACCOUNT_A, juc), "transfer-2").start();
        new Thread(() -> reserve(INVENTORY, LEDGER, mon), "reserve-1").start();
        new Thread(() -> reserve(LEDGER, INVENTORY, mon), "reserve-2").start();
        Thread.sleep(500);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(ttl * 1000L);
    }
}
