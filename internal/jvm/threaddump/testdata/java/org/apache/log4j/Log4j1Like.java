// Log4j1Like: the shape of log4j 1.x under load: Category.callAppenders
// synchronizes on each Logger up the hierarchy, then AppenderSkeleton.doAppend
// on the appender, and the FileAppender writes unbuffered (ImmediateFlush=true).
// Lives in org.apache.log4j so frames match log4j 1.2. JDK only.
// Run: java Log4j1Like.java [seconds-to-live]; prints READY once 30 threads log.
package org.apache.log4j;

import java.io.*;
import java.nio.charset.StandardCharsets;

public class Log4j1Like {
    public static void main(String[] args) throws Exception {
        int ttl = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        Thread killer = new Thread(() -> { try { Thread.sleep(ttl * 1000L); } catch (InterruptedException e) { } System.exit(0); }, "ttl");
        killer.setDaemon(true); killer.start();
        File f = File.createTempFile("log4j1like", ".log");
        f.deleteOnExit();
        Logger root = new Logger(new FileAppender(new FileOutputStream(f)));
        for (int i = 0; i < 30; i++) {
            final int id = i;
            new Thread(() -> {
                while (true) root.info("2026-11-21 23:00:00,000 INFO [worker-" + id + "] OrderController - order accepted");
            }, "WebContainer : " + i).start();
        }
        Thread.sleep(1500);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(ttl * 1000L);
    }
}

class AppenderSkeleton {
    synchronized void doAppend(String msg) { append(msg); }
    void append(String msg) { }
}

class FileAppender extends AppenderSkeleton {
    private final Writer w;
    FileAppender(OutputStream os) { w = new OutputStreamWriter(os, StandardCharsets.UTF_8); }
    @Override void append(String msg) {
        try { w.write(msg); w.write('\n'); w.flush(); } catch (IOException e) { throw new UncheckedIOException(e); }
    }
}

class Category {
    private final AppenderSkeleton appender;
    Category(AppenderSkeleton a) { appender = a; }
    void callAppenders(String msg) {
        synchronized (this) { appender.doAppend(msg); }
    }
    void forcedLog(String msg) { callAppenders(msg); }
    public void info(String msg) { forcedLog(msg); }
}

class Logger extends Category {
    Logger(AppenderSkeleton a) { super(a); }
}
