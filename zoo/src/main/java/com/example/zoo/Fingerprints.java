package com.example.zoo;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import javax.sql.DataSource;

/**
 * Reproduces, with the real libraries, the contention each thread-dump fingerprint of
 * tuneloop (internal/jvm/threaddump/culprits.go) recognises, so that its tests run on real
 * dumps (zoo/fingerprints.sh takes them). Not an HTTP scenario: no Tomcat, no port.
 *
 * <pre>java -cp zoo/target/zoo.jar com.example.zoo.Fingerprints CASE [seconds]</pre>
 *
 * Prints {@code READY <pid>} once the threads are in place and halts after the given seconds
 * (default 60). Slow storage is a named pipe drained at a few KiB/s: the appenders' writes
 * then really block in FileOutputStream.writeBytes, as on a saturated disk.
 */
public final class Fingerprints {
    static final int WORKERS = 24;
    static final int HOLDERS = 2;

    private Fingerprints() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: Fingerprints druid|dbcp|c3p0|hikari|log4j2-async|log4j2-asyncroot|"
                    + "logback-async|logback-sift|securerandom|classloading|classloading-direct [seconds]");
            System.exit(2);
        }
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 60;
        // Bounded whatever happens: halt, not exit, because the loggers' shutdown hooks would
        // try to flush into the blocked pipe.
        Thread killer = new Thread(() -> {
            try {
                Thread.sleep(seconds * 1000);
            } catch (InterruptedException ignored) {
                // halt anyway
            }
            for (Path dir : TEMP_DIRS) {
                deleteTree(dir);
            }
            Runtime.getRuntime().halt(0);
        }, "fingerprints-timeout");
        killer.setDaemon(true);
        killer.start();

        List<Thread> workers;
        switch (args[0]) {
            case "druid":
                workers = pool(druid());
                break;
            case "dbcp":
                workers = pool(dbcp());
                break;
            case "c3p0":
                workers = pool(c3p0());
                break;
            case "hikari":
                workers = pool(hikari());
                break;
            case "log4j2-async":
                workers = log4j2(false);
                break;
            case "log4j2-asyncroot":
                workers = log4j2(true);
                break;
            case "logback-async":
                workers = logback(false);
                break;
            case "logback-sift":
                workers = logback(true);
                break;
            case "securerandom":
                workers = secureRandom();
                break;
            case "classloading":
                workers = classLoading(false);
                break;
            case "classloading-direct":
                workers = classLoading(true);
                break;
            default:
                System.err.println("unknown case " + args[0]);
                System.exit(2);
                return;
        }
        awaitStuck(workers, WORKERS - HOLDERS - 1);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        killer.join();
    }

    /** Waits until at least n workers are off-CPU (blocked or waiting), then a little more. */
    static void awaitStuck(List<Thread> workers, int n) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            int stuck = 0;
            for (Thread t : workers) {
                Thread.State s = t.getState();
                if (s == Thread.State.BLOCKED || s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                    stuck++;
                }
            }
            if (stuck >= n) {
                break;
            }
            Thread.sleep(100);
        }
        Thread.sleep(1000);
    }

    static List<Thread> start(int n, String prefix, Runnable body) {
        List<Thread> ts = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            Thread t = new Thread(body, prefix + i);
            t.setDaemon(true);
            t.start();
            ts.add(t);
        }
        return ts;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- JDBC pools: 2 connections, held by 2 threads running "slow SQL", the rest wait.

    static final String H2_URL = "jdbc:h2:mem:fingerprints;DB_CLOSE_DELAY=-1";

    static List<Thread> pool(DataSource ds) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(HOLDERS);
        List<Thread> ts = start(HOLDERS, "order-slow-sql-", () -> {
            try (Connection c = ds.getConnection()) {
                held.countDown();
                Thread.sleep(Long.MAX_VALUE); // a slow statement or a long transaction
            } catch (SQLException | InterruptedException e) {
                e.printStackTrace();
            }
        });
        held.await();
        ts.addAll(start(WORKERS - HOLDERS, "http-nio-8080-exec-", () -> {
            try (Connection c = ds.getConnection()) {
                c.createStatement().execute("SELECT 1");
            } catch (SQLException e) {
                e.printStackTrace();
            }
        }));
        return ts;
    }

    static DataSource druid() throws SQLException {
        com.alibaba.druid.pool.DruidDataSource ds = new com.alibaba.druid.pool.DruidDataSource();
        ds.setUrl(H2_URL);
        ds.setDriverClassName("org.h2.Driver");
        ds.setMaxActive(HOLDERS);
        ds.setInitialSize(HOLDERS);
        ds.setMaxWait(600_000); // a long maxWait: callers queue (pollLast) instead of failing
        ds.init();
        return ds;
    }

    static DataSource dbcp() {
        org.apache.commons.dbcp2.BasicDataSource ds = new org.apache.commons.dbcp2.BasicDataSource();
        ds.setUrl(H2_URL);
        ds.setDriverClassName("org.h2.Driver");
        ds.setMaxTotal(HOLDERS);
        ds.setMaxIdle(HOLDERS);
        // maxWait stays at its default (-1): wait forever, the usual production setting.
        return ds;
    }

    static DataSource c3p0() throws Exception {
        System.setProperty("com.mchange.v2.log.MLog", "com.mchange.v2.log.jdk14logging.Jdk14MLog");
        com.mchange.v2.c3p0.ComboPooledDataSource ds = new com.mchange.v2.c3p0.ComboPooledDataSource();
        ds.setDriverClass("org.h2.Driver");
        ds.setJdbcUrl(H2_URL);
        ds.setMinPoolSize(HOLDERS);
        ds.setInitialPoolSize(HOLDERS);
        ds.setMaxPoolSize(HOLDERS);
        // checkoutTimeout stays 0 (the default): wait forever.
        return ds;
    }

    static DataSource hikari() {
        com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
        cfg.setJdbcUrl(H2_URL);
        cfg.setMaximumPoolSize(HOLDERS);
        cfg.setMinimumIdle(HOLDERS);
        cfg.setConnectionTimeout(600_000);
        cfg.setPoolName("HikariPool-1");
        return new com.zaxxer.hikari.HikariDataSource(cfg);
    }

    // ---- Logging into a slow disk.

    /**
     * A named pipe drained at about 4 KiB/s by a daemon thread: a file whose writes block once
     * the pipe's 64 KiB buffer is full. The reader opens first, as opening a FIFO for writing
     * blocks until one does.
     */
    static String slowFile(Path dir, String name) throws IOException, InterruptedException {
        Path p = dir.resolve(name);
        Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        if (mk.waitFor() != 0) {
            throw new IOException("mkfifo " + p + " failed");
        }
        Thread drain = new Thread(() -> {
            byte[] buf = new byte[512];
            try (InputStream in = new FileInputStream(p.toFile())) {
                while (in.read(buf) >= 0) {
                    Thread.sleep(125);
                }
            } catch (IOException | InterruptedException e) {
                e.printStackTrace();
            }
        }, "slow-disk-" + name);
        drain.setDaemon(true);
        drain.start();
        return p.toString();
    }

    /** Removed before the halt (deleteOnExit would not run); fingerprints.sh also sets java.io.tmpdir. */
    static final List<Path> TEMP_DIRS = new java.util.concurrent.CopyOnWriteArrayList<>();

    static Path tempDir() throws IOException {
        Path dir = Files.createTempDirectory("zoo-fingerprints-");
        TEMP_DIRS.add(dir);
        return dir;
    }

    static void deleteTree(Path dir) {
        File[] files = dir.toFile().listFiles();
        if (files != null) {
            for (File f : files) {
                f.delete();
            }
        }
        dir.toFile().delete();
    }

    static final String LINE = "order accepted: id={} amount=129.90 currency=CNY channel=app tenant={}";

    /**
     * log4j2 asynchronous logging with a 128-slot ring buffer (the minimum) in front of a File
     * appender on the slow disk: the ring fills and callers block (the default queue-full
     * policy). all-async: AsyncLoggerContextSelector; asyncRoot: mixed, an AsyncRoot in the
     * configuration (AsyncLoggerConfig), as the zoo's own log4j2-async.xml.
     */
    static List<Thread> log4j2(boolean asyncRoot) throws Exception {
        Path dir = tempDir();
        String file = slowFile(dir, "app.log");
        String root = asyncRoot ? "AsyncRoot" : "Root";
        String xml = "<Configuration status=\"WARN\">\n"
                + "  <Appenders>\n"
                + "    <File name=\"FILE\" fileName=\"" + file + "\" immediateFlush=\"true\">\n"
                + "      <PatternLayout pattern=\"%d [%t] %-5level %logger - %msg%n\"/>\n"
                + "    </File>\n"
                + "  </Appenders>\n"
                + "  <Loggers>\n"
                + "    <" + root + " level=\"info\"><AppenderRef ref=\"FILE\"/></" + root + ">\n"
                + "  </Loggers>\n"
                + "</Configuration>\n";
        Path cfg = dir.resolve("log4j2.xml");
        Files.write(cfg, xml.getBytes(StandardCharsets.UTF_8));
        System.setProperty("log4j2.configurationFile", cfg.toString());
        if (asyncRoot) {
            System.setProperty("log4j2.asyncLoggerConfigRingBufferSize", "128");
        } else {
            System.setProperty("log4j2.contextSelector", "org.apache.logging.log4j.core.async.AsyncLoggerContextSelector");
            System.setProperty("log4j2.asyncLoggerRingBufferSize", "128");
        }
        org.apache.logging.log4j.Logger log = org.apache.logging.log4j.LogManager.getLogger("com.example.zoo.OrderService");
        return start(WORKERS, "http-nio-8080-exec-", () -> {
            for (long i = 0; !Thread.currentThread().isInterrupted(); i++) {
                log.info(LINE, i, "t1");
            }
        });
    }

    /**
     * logback: an AsyncAppender (queueSize 16, neverBlock=false, discardingThreshold 0 so INFO
     * is not dropped) in front of a FileAppender on the slow disk; or (sift) a SiftingAppender
     * routing by MDC tenant to per-tenant FileAppenders on the slow disk, whose synchronized
     * AppenderBase.doAppend makes every caller wait for the write in progress.
     */
    static List<Thread> logback(boolean sift) throws Exception {
        Path dir = tempDir();
        String xml;
        if (sift) {
            slowFile(dir, "tenant-t1.log");
            slowFile(dir, "tenant-t2.log");
            xml = "<configuration>\n"
                    + "  <appender name=\"SIFT\" class=\"ch.qos.logback.classic.sift.SiftingAppender\">\n"
                    + "    <discriminator><key>tenant</key><defaultValue>t1</defaultValue></discriminator>\n"
                    + "    <sift>\n"
                    + "      <appender name=\"FILE-${tenant}\" class=\"ch.qos.logback.core.FileAppender\">\n"
                    + "        <file>" + dir + "/tenant-${tenant}.log</file>\n"
                    + "        <encoder><pattern>%d [%thread] %-5level %logger - %msg%n</pattern></encoder>\n"
                    + "      </appender>\n"
                    + "    </sift>\n"
                    + "  </appender>\n"
                    + "  <root level=\"INFO\"><appender-ref ref=\"SIFT\"/></root>\n"
                    + "</configuration>\n";
        } else {
            String file = slowFile(dir, "app.log");
            xml = "<configuration>\n"
                    + "  <appender name=\"FILE\" class=\"ch.qos.logback.core.FileAppender\">\n"
                    + "    <file>" + file + "</file>\n"
                    + "    <encoder><pattern>%d [%thread] %-5level %logger - %msg%n</pattern></encoder>\n"
                    + "  </appender>\n"
                    + "  <appender name=\"ASYNC\" class=\"ch.qos.logback.classic.AsyncAppender\">\n"
                    + "    <queueSize>16</queueSize>\n"
                    + "    <discardingThreshold>0</discardingThreshold>\n"
                    + "    <neverBlock>false</neverBlock>\n"
                    + "    <appender-ref ref=\"FILE\"/>\n"
                    + "  </appender>\n"
                    + "  <root level=\"INFO\"><appender-ref ref=\"ASYNC\"/></root>\n"
                    + "</configuration>\n";
        }
        Path cfg = dir.resolve("logback.xml");
        Files.write(cfg, xml.getBytes(StandardCharsets.UTF_8));
        ch.qos.logback.classic.LoggerContext lc = (ch.qos.logback.classic.LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
        lc.reset();
        ch.qos.logback.classic.joran.JoranConfigurator jc = new ch.qos.logback.classic.joran.JoranConfigurator();
        jc.setContext(lc);
        jc.doConfigure(cfg.toFile());
        org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger("com.example.zoo.OrderService");
        List<Thread> ts = new ArrayList<>();
        for (int i = 1; i <= WORKERS; i++) {
            String tenant = i % 2 == 0 ? "t2" : "t1";
            Thread t = new Thread(() -> {
                org.slf4j.MDC.put("tenant", tenant);
                for (long n = 0; !Thread.currentThread().isInterrupted(); n++) {
                    log.info(LINE, n, tenant);
                }
            }, "http-nio-8080-exec-" + i);
            t.setDaemon(true);
            t.start();
            ts.add(t);
        }
        return ts;
    }

    // ---- JDK.

    /**
     * One SecureRandom shared by every thread (new SecureRandom(): NativePRNG on Linux, the
     * common "static final SecureRandom" of token code). Callers queue on NativePRNG's SHA1PRNG
     * mixer (synchronized engineNextBytes) or on its LOCK_GET_BYTES: a dump shows either.
     */
    static List<Thread> secureRandom() {
        SecureRandom shared = new SecureRandom();
        return start(WORKERS, "http-nio-8080-exec-", () -> {
            byte[] token = new byte[4096];
            while (!Thread.currentThread().isInterrupted()) {
                shared.nextBytes(token);
            }
        });
    }

    /**
     * A URLClassLoader subclass that does not call registerAsParallelCapable (a common mistake
     * of plugin and script loaders): its class-loading lock is the loader itself, so threads
     * loading different classes through it queue on one monitor. The loader reads the zoo jar
     * child-first; its findClass pauses 20 ms per class, a class path on slow storage (NFS, a
     * remote jar), so the dump catches the queue however fast this machine is.
     */
    static final class PluginLoader extends URLClassLoader {
        PluginLoader(URL[] urls) {
            super(urls, ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            sleep(20);
            return super.findClass(name);
        }
    }

    /**
     * direct: the workers call loader.loadClass, as plugin hosts and frameworks do, and wait in
     * ClassLoader.loadClass's synchronized block ("waiting to lock" the loader). Otherwise they
     * call Class.forName, and HotSpot itself takes a non-parallel-capable loader's lock before
     * calling loadClass: they wait in the native Class.forName0, and the dump shows no lock line.
     */
    static List<Thread> classLoading(boolean direct) throws Exception {
        File jar = new File(Fingerprints.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> names = new ArrayList<>();
        try (JarFile jf = new JarFile(jar)) {
            for (Enumeration<JarEntry> e = jf.entries(); e.hasMoreElements();) {
                String n = e.nextElement().getName();
                // Every library class (thousands: at 20 ms each, minutes of queueing).
                if (n.endsWith(".class") && !n.startsWith("META-INF/") && !n.contains("module-info")) {
                    names.add(n.substring(0, n.length() - 6).replace('/', '.'));
                }
            }
        }
        PluginLoader loader = new PluginLoader(new URL[] {jar.toURI().toURL()});
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            int k = i;
            Thread t = new Thread(() -> {
                for (int j = k; j < names.size() && !Thread.currentThread().isInterrupted(); j += WORKERS) {
                    try {
                        if (direct) {
                            loader.loadClass(names.get(j));
                        } else {
                            Class.forName(names.get(j), false, loader);
                        }
                    } catch (ClassNotFoundException | LinkageError e) {
                        // optional dependencies missing from the jar: keep going
                    }
                }
            }, "plugin-loader-" + (i + 1));
            t.setDaemon(true);
            t.start();
            ts.add(t);
        }
        return ts;
    }
}
