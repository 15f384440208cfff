// Log4j2Like: the shape of log4j2's synchronous FileAppender under load: every
// caller enters the synchronized OutputStreamManager.writeBytes of one FileManager.
// Lives in org.apache.logging.log4j.core.appender so dump frames match log4j2's.
// JDK only. Run: java Log4j2Like.java [seconds-to-live]; prints READY once 30 threads log.
package org.apache.logging.log4j.core.appender;

import java.io.*;
import java.nio.charset.StandardCharsets;

public class Log4j2Like {
    public static void main(String[] args) throws Exception {
        int ttl = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        Thread killer = new Thread(() -> { try { Thread.sleep(ttl * 1000L); } catch (InterruptedException e) { } System.exit(0); }, "ttl");
        killer.setDaemon(true); killer.start();
        File f = File.createTempFile("log4j2like", ".log");
        f.deleteOnExit();
        FileManager m = new FileManager(new FileOutputStream(f));
        for (int i = 0; i < 30; i++) {
            final int id = i;
            new Thread(() -> {
                long k = 0;
                byte[] b = ("2026-11-21 23:00:00.000 INFO [worker-" + id + "] c.e.OrderController - order accepted\n").getBytes(StandardCharsets.UTF_8);
                while (true) m.writeBytes(b, 0, b.length);
            }, "DubboServerHandler-10.0.0.1:20880-thread-" + (i + 1)).start();
        }
        Thread.sleep(1500);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(ttl * 1000L);
    }
}

class OutputStreamManager {
    private final OutputStream os;
    OutputStreamManager(OutputStream os) { this.os = os; }
    protected synchronized void writeBytes(byte[] b, int off, int len) {
        try { os.write(b, off, len); os.flush(); } catch (IOException e) { throw new UncheckedIOException(e); }
    }
}

class FileManager extends OutputStreamManager {
    FileManager(OutputStream os) { super(os); }
}
