// ThreadInfoDump: prints ThreadMXBean.dumpAllThreads(true, true) with
// ThreadInfo.toString(), the form applications log from watchdogs, while
// 5 threads block on a monitor held by a sleeper and two threads are
// deadlocked on ReentrantLocks. Run: java ThreadInfoDump.java > dump.txt
import java.lang.management.*;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

public class ThreadInfoDump {
    static final Object INVENTORY = new Object();
    static final ReentrantLock A = new ReentrantLock(), B = new ReentrantLock();

    static void transfer(ReentrantLock first, ReentrantLock second, CountDownLatch both) {
        first.lock();
        try {
            both.countDown();
            try { both.await(); } catch (InterruptedException e) { return; }
            second.lock();
            second.unlock();
        } finally { first.unlock(); }
    }

    public static void main(String[] args) throws Exception {
        Thread holder = new Thread(() -> {
            synchronized (INVENTORY) { try { Thread.sleep(60_000); } catch (InterruptedException e) { } }
        }, "inventory-holder");
        holder.setDaemon(true);
        holder.start();
        Thread.sleep(100);
        for (int i = 0; i < 5; i++) {
            Thread t = new Thread(() -> { synchronized (INVENTORY) { Thread.onSpinWait(); } }, "order-worker-" + i);
            t.setDaemon(true);
            t.start();
        }
        CountDownLatch both = new CountDownLatch(2);
        Thread t1 = new Thread(() -> transfer(A, B, both), "transfer-1");
        Thread t2 = new Thread(() -> transfer(B, A, both), "transfer-2");
        t1.setDaemon(true); t2.setDaemon(true);
        t1.start(); t2.start();
        Thread.sleep(500);
        for (ThreadInfo ti : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            System.out.print(ti);
        }
        System.exit(0);
    }
}
