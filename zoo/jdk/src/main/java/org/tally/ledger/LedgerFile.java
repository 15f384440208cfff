package org.tally.ledger;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The append-only ledger file. A booking gets the next sequence number and is durable (forced to
 * the disk) before {@link #book} returns.
 *
 * As shipped, {@link #book} forces the file inside the ledger's monitor, so bookings are durable one
 * at a time. With group commit (--fixed) a booking is appended under the monitor and the caller waits
 * for the "ledger-sync" thread, which forces everything appended so far outside the monitor and
 * wakes the callers it covered.
 */
final class LedgerFile implements AutoCloseable {
    private static final long MAX_BYTES = 64L << 20;

    private final FileChannel channel;
    private final Thread syncer;
    private long nextSeq = 1;
    private long written;      // bytes appended (guarded by this)
    private long durableUpTo;  // bytes forced (guarded by this)
    private volatile boolean closed;

    LedgerFile(Path file, boolean groupCommit) throws IOException {
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        this.syncer = groupCommit ? new Thread(this::syncLoop, "ledger-sync") : null;
        if (syncer != null) {
            syncer.setDaemon(true);
            syncer.start();
        }
    }

    long book(String wallet, long cents) throws IOException {
        if (syncer != null) {
            synchronized (this) {
                long seq = nextSeq++;
                long end = append(seq, wallet, cents);
                notifyAll(); // the syncer may be waiting for work
                while (durableUpTo < end && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted before the booking was durable", e);
                    }
                }
                return seq;
            }
        }
        synchronized (this) {
            long seq = nextSeq++;
            append(seq, wallet, cents);
            channel.force(false);
            return seq;
        }
    }

    private long append(long seq, String wallet, long cents) throws IOException {
        if (written > MAX_BYTES) {
            channel.truncate(0);
            channel.position(0);
            written = 0;
            durableUpTo = 0;
        }
        String rec = seq + ";" + Instant.now() + ";" + wallet + ";CREDIT;" + cents + "\n";
        ByteBuffer buf = ByteBuffer.wrap(rec.getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) {
            written += channel.write(buf);
        }
        return written;
    }

    /** Group commit: force what was appended, outside the monitor, then wake the bookings it covers. */
    private void syncLoop() {
        while (!closed) {
            long upTo;
            synchronized (this) {
                while (durableUpTo >= written && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                upTo = written;
            }
            try {
                channel.force(false);
            } catch (IOException e) {
                System.err.println("ledger-sync: " + e);
                return;
            }
            synchronized (this) {
                durableUpTo = Math.max(durableUpTo, upTo);
                notifyAll();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            notifyAll();
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // stopping
        }
    }
}
