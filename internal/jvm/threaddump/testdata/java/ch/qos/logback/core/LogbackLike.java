// LogbackLike: the shape of logback's synchronous OutputStreamAppender under load.
// The class lives in ch.qos.logback.core so the frames in the dump are the ones
// a real logback application shows (OutputStreamAppender.writeBytes guarded by an
// unfair ReentrantLock, immediateFlush=true). JDK only, no logback jar.
// Run: java LogbackLike.java [seconds-to-live]; prints READY once 30 threads log.
package ch.qos.logback.core;

import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;

public class LogbackLike {
    public static void main(String[] args) throws Exception {
        int ttl = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        Thread killer = new Thread(() -> { try { Thread.sleep(ttl * 1000L); } catch (InterruptedException e) { } System.exit(0); }, "ttl");
        killer.setDaemon(true); killer.start();
        File f = File.createTempFile("logbacklike", ".log");
        f.deleteOnExit();
        OutputStreamAppender app = new OutputStreamAppender(new FileOutputStream(f));
        for (int i = 0; i < 30; i++) {
            final int id = i;
            new Thread(() -> {
                long k = 0;
                while (true) app.doAppend("2026-11-21 23:00:00.000 INFO [worker-" + id + "] c.e.OrderController - order " + (k++) + " accepted\n");
            }, "http-nio-8080-exec-" + (i + 1)).start();
        }
        Thread.sleep(1500);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(ttl * 1000L);
    }
}

class UnsynchronizedAppenderBase {
}

class OutputStreamAppender extends UnsynchronizedAppenderBase {
    private final ReentrantLock streamWriteLock = new ReentrantLock(false);
    private final OutputStream out;
    OutputStreamAppender(OutputStream out) { this.out = out; }

    void doAppend(String event) { append(event); }
    void append(String event) { subAppend(event); }
    void subAppend(String event) {
        try { writeBytes(event.getBytes(StandardCharsets.UTF_8)); } catch (IOException e) { throw new UncheckedIOException(e); }
    }
    private void writeBytes(byte[] b) throws IOException {
        streamWriteLock.lock();
        try {
            out.write(b);
            out.flush(); // immediateFlush=true
        } finally {
            streamWriteLock.unlock();
        }
    }
}
