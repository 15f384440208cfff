package com.example.zoo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * fsync-io: every request appends a record to a journal file and makes it durable with
 * FileChannel.force(true), holding the journal's monitor for the write and the fsync: requests
 * run one at a time at the disk's fsync latency. A thread dump shows the http-nio-*-exec-*
 * threads BLOCKED on com.example.zoo.Journal in Journal.append, the holder in
 * sun.nio.ch.FileChannelImpl.force / FileDispatcherImpl.force0; iostat shows a small request
 * size and a high w/s with a low throughput.
 *
 * <p>--fixed: group commit. Requests append under the lock (no fsync) and wait until a
 * dedicated journal-committer thread has made their record durable; the committer fsyncs
 * everything appended so far in one force(true), so one fsync covers every request that arrived
 * while the previous one ran (like InnoDB's and PostgreSQL's group commit). Durability per
 * acknowledged request is unchanged.
 */
final class Journal implements Scenario {
    static final long MAX_BYTES = 64L << 20;

    private final Config cfg;
    private FileChannel ch;
    private Path file;

    // group commit state (fixed)
    private final ReentrantLock commitLock = new ReentrantLock();
    private final Condition pending = commitLock.newCondition();
    private final Condition durable = commitLock.newCondition();
    private long appendedSeq;
    private long durableSeq;
    private long fsyncs;
    private volatile boolean running = true;
    private Thread committer;

    Journal(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public void start() throws IOException {
        file = cfg.dataDir.resolve("journal-" + cfg.port + ".log");
        ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        if (cfg.fixed) {
            committer = new Thread(this::commitLoop, "journal-committer");
            committer.setDaemon(true);
            committer.start();
        }
    }

    /** The bottleneck: write and fsync under one lock, one record at a time. */
    synchronized long append(ByteBuffer record) throws IOException {
        rotateIfNeeded();
        while (record.hasRemaining()) {
            ch.write(record);
        }
        ch.force(true);
        return ++appendedSeq;
    }

    /** The fix: append without fsync, then wait for the group commit that covers the record. */
    long appendGroupCommit(ByteBuffer record) throws IOException, InterruptedException {
        long seq;
        synchronized (this) {
            rotateIfNeeded();
            while (record.hasRemaining()) {
                ch.write(record);
            }
            commitLock.lock();
            try {
                seq = ++appendedSeq;
                pending.signal();
            } finally {
                commitLock.unlock();
            }
        }
        commitLock.lock();
        try {
            while (durableSeq < seq) {
                durable.await();
            }
        } finally {
            commitLock.unlock();
        }
        return seq;
    }

    private void commitLoop() {
        while (running) {
            long target;
            commitLock.lock();
            try {
                while (appendedSeq == durableSeq && running) {
                    pending.await();
                }
                target = appendedSeq;
            } catch (InterruptedException e) {
                return;
            } finally {
                commitLock.unlock();
            }
            try {
                ch.force(true); // covers every record appended up to target (and maybe more)
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            commitLock.lock();
            try {
                durableSeq = Math.max(durableSeq, target);
                fsyncs++;
                durable.signalAll();
            } finally {
                commitLock.unlock();
            }
        }
    }

    private void rotateIfNeeded() throws IOException {
        if (ch.position() > MAX_BYTES) {
            ch.truncate(0);
            ch.position(0);
        }
    }

    @Override
    public String handle(long n, Map<String, String> query) throws Exception {
        Order o = Order.of(n, query);
        String rec = "{\"seq\":" + n + ",\"order\":" + o.id + ",\"customer\":\"" + o.customer + "\",\"sku\":\"" + o.sku
                + "\",\"qty\":" + o.qty + ",\"total\":" + o.total + ",\"trace\":\"" + o.traceId + "\"}\n";
        ByteBuffer buf = ByteBuffer.wrap(rec.getBytes(StandardCharsets.UTF_8));
        long seq = cfg.fixed ? appendGroupCommit(buf) : append(buf);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("orderId", o.id);
        m.put("journalSeq", seq);
        m.put("durable", true);
        if (cfg.fixed) {
            commitLock.lock();
            try {
                m.put("fsyncs", fsyncs);
            } finally {
                commitLock.unlock();
            }
        }
        return Json.obj(m);
    }

    @Override
    public void stop() {
        running = false;
        if (committer != null) {
            committer.interrupt();
        }
        try {
            if (ch != null) {
                ch.close();
            }
        } catch (IOException ignored) {
            // shutting down
        }
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "fsync-io (fixed): group commit: one FileChannel.force(true) per batch of pending records in " + file
                : "fsync-io: FileChannel.write + force(true) per request under the Journal monitor in " + file;
    }
}
