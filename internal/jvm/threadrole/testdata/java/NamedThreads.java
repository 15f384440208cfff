import java.util.*;
import java.util.concurrent.*;

// Threads named the way Tomcat, Netty, Vert.x, Kafka, HikariCP and the JDK's
// executors name theirs, next to the JVM's own (compiler, GC, VM threads),
// for threadrole's live test: it reads every thread's kernel name
// (/proc/PID/task/TID/comm, cut to 15 bytes) and its Java name and stack
// (jcmd Thread.print) and checks both classify alike. Prints "READY <pid>".
public class NamedThreads {
  public static void main(String[] a) throws Exception {
    long ms = Long.parseLong(a.length > 0 ? a[0] : "30") * 1000;
    String[] names = {
      "http-nio-8080-exec-1", "http-nio-8080-Poller", "http-nio-8080-Acceptor", "nioEventLoopGroup-2-1",
      "vert.x-eventloop-thread-0", "kafka-producer-network-thread | producer-1", "HikariPool-1 housekeeper",
      "ForkJoinPool.commonPool-worker-1", "Catalina-utility-1", "AsyncAppender-Worker-ASYNC",
    };
    CountDownLatch never = new CountDownLatch(1);
    for (String n : names) {
      Thread t = new Thread(() -> { try { never.await(); } catch (InterruptedException e) { } }, n);
      t.setDaemon(true);
      t.start();
    }
    ExecutorService pool = Executors.newFixedThreadPool(2); // pool-1-thread-1, -2
    pool.submit(() -> { try { never.await(); } catch (InterruptedException e) { } });
    pool.submit(() -> { try { never.await(); } catch (InterruptedException e) { } });
    System.gc(); // the GC's threads start on first use in some collectors
    System.out.println("READY " + ProcessHandle.current().pid());
    Thread.sleep(ms);
    System.exit(0);
  }
}
