import java.lang.management.*;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.concurrent.locks.ReentrantLock;

// Prints this JVM's threads in the text VisualVM shows for a JMX connection
// ("Thread Dump" of a remote application): "name" - Thread t@ID, the lock on
// the state line, "- locked" monitors under their frame, ownable synchronizers.
public class VisualVMFormat {
    static final Object cache = new Object();
    static final ReentrantLock pool = new ReentrantLock();

    public static void main(String[] args) throws Exception {
        Thread holder = new Thread(() -> { synchronized (cache) { sleep(60_000); } }, "cache-refresher");
        holder.start();
        Thread.sleep(200);
        for (int i = 0; i < 3; i++) {
            new Thread(() -> { synchronized (cache) { } }, "cache-reader-" + i).start();
        }
        Thread owner = new Thread(() -> { pool.lock(); try { sleep(60_000); } finally { pool.unlock(); } }, "pool-owner");
        owner.start();
        Thread.sleep(200);
        for (int i = 0; i < 2; i++) {
            new Thread(() -> { pool.lock(); pool.unlock(); }, "pool-waiter-" + i).start();
        }
        Thread.sleep(500);
        System.out.print(dump());
        System.exit(0);
    }

    static void sleep(long ms) { try { Thread.sleep(ms); } catch (InterruptedException e) { } }

    static String dump() {
        RuntimeMXBean rt = ManagementFactory.getRuntimeMXBean();
        ThreadMXBean tm = ManagementFactory.getThreadMXBean();
        StringBuilder sb = new StringBuilder();
        sb.append(new SimpleDateFormat("yyyy-MM-dd HH:mm:ss").format(new Date())).append("\n");
        sb.append("Full thread dump ").append(rt.getVmName()).append(" (").append(rt.getVmVersion()).append(" ")
          .append(System.getProperty("java.vm.info")).append("):\n");
        for (ThreadInfo t : tm.dumpAllThreads(true, true)) {
            MonitorInfo[] mons = t.getLockedMonitors();
            sb.append("\n\"").append(t.getThreadName()).append("\" - Thread t@").append(t.getThreadId()).append("\n");
            sb.append("   java.lang.Thread.State: ").append(t.getThreadState());
            if (t.getLockName() != null) {
                sb.append(" on ").append(t.getLockName());
                if (t.getLockOwnerName() != null) sb.append(" owned by: ").append(t.getLockOwnerName());
            }
            sb.append("\n");
            int depth = 0;
            for (StackTraceElement st : t.getStackTrace()) {
                sb.append("\tat ").append(st).append("\n");
                for (MonitorInfo mi : mons) {
                    if (mi.getLockedStackDepth() == depth) sb.append("\t- locked ").append(mi).append("\n");
                }
                depth++;
            }
            sb.append("\n   Locked ownable synchronizers:");
            LockInfo[] syncs = t.getLockedSynchronizers();
            if (syncs.length == 0) sb.append("\n\t- None\n");
            else for (LockInfo li : syncs) sb.append("\n\t- locked ").append(li).append("\n");
        }
        return sb.toString();
    }
}
