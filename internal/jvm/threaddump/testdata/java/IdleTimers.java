// IdleTimers: an application at rest between its scheduled jobs. A java.util.Timer
// ("report-timer") and a ScheduledThreadPoolExecutor of 4 threads ("metrics-scheduler-N")
// whose periodic tasks ran once at start and next run in minutes; a worker loop in
// Object.wait waiting for work ("job-dispatcher"); main in Thread.sleep. Nothing is stuck:
// every thread waits for work or time.
// Run: java IdleTimers.java [seconds-to-live]; prints READY <pid> once every task ran once.
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;

public class IdleTimers {
    static final class Dispatcher implements Runnable {
        private final Deque<Runnable> jobs = new ArrayDeque<>();

        synchronized void submit(Runnable r) {
            jobs.add(r);
            notifyAll();
        }

        public void run() {
            while (true) {
                Runnable r;
                synchronized (this) {
                    while (jobs.isEmpty()) {
                        try { wait(); } catch (InterruptedException e) { return; }
                    }
                    r = jobs.poll();
                }
                r.run();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int ttl = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        Thread killer = new Thread(() -> { try { Thread.sleep(ttl * 1000L); } catch (InterruptedException e) { } System.exit(0); }, "ttl");
        killer.setDaemon(true); killer.start();

        CountDownLatch ran = new CountDownLatch(6);
        Timer timer = new Timer("report-timer", true);
        timer.scheduleAtFixedRate(new TimerTask() { public void run() { ran.countDown(); } }, 0, 10 * 60_000L);

        AtomicInteger n = new AtomicInteger();
        ScheduledThreadPoolExecutor sched = new ScheduledThreadPoolExecutor(4, r -> {
            Thread t = new Thread(r, "metrics-scheduler-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        for (int i = 0; i < 4; i++) {
            sched.scheduleAtFixedRate(ran::countDown, 0, 5, TimeUnit.MINUTES);
        }

        Dispatcher d = new Dispatcher();
        Thread dt = new Thread(d, "job-dispatcher");
        dt.setDaemon(true); dt.start();
        d.submit(ran::countDown);

        ran.await();
        Thread.sleep(500); // let every worker go back to waiting
        System.out.println("READY " + ProcessHandle.current().pid());
        Thread.sleep(ttl * 1000L);
    }
}
