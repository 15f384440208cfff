// VirtualBusy (JDK 21+): virtual threads mounted on carriers while they spin,
// so Thread.print shows carriers "Carrying virtual thread #N", and JSON dumps
// list the virtual threads with their carrier. Some VTs also wait on a lock.
// Run: java VirtualBusy.java [seconds-to-live]; prints READY when mounted.
import java.util.concurrent.locks.ReentrantLock;

public class VirtualBusy {
    static volatile long sink;
    static final ReentrantLock LOCK = new ReentrantLock();

    static void spin() {
        long x = 0;
        while (true) { x += System.nanoTime() % 7; sink = x; }
    }

    public static void main(String[] args) throws Exception {
        int ttl = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        Thread killer = new Thread(() -> { try { Thread.sleep(ttl * 1000L); } catch (InterruptedException e) { } System.exit(0); }, "ttl");
        killer.setDaemon(true); killer.start();
        for (int i = 0; i < 2; i++) Thread.ofVirtual().name("spinner-" + i).start(VirtualBusy::spin);
        LOCK.lock(); // main holds it; these VTs park on it (unmounted)
        for (int i = 0; i < 3; i++) Thread.ofVirtual().name("vt-waiter-" + i).start(() -> { LOCK.lock(); LOCK.unlock(); });
        Thread.sleep(700);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(ttl * 1000L);
    }
}
