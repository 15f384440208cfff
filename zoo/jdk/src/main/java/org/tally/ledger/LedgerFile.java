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
 */
final class LedgerFile implements AutoCloseable {
    private static final long MAX_BYTES = 64L << 20;

    private final FileChannel channel;
    private final boolean forceOutsideLock;
    private long nextSeq = 1;
    private long written;
    private final Object durableLock = new Object();
    private long durableUpTo;

    LedgerFile(Path file, boolean forceOutsideLock) throws IOException {
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        this.forceOutsideLock = forceOutsideLock;
    }

    long book(String wallet, long cents) throws IOException {
        if (forceOutsideLock) {
            long seq, end;
            synchronized (this) {
                seq = nextSeq++;
                end = append(seq, wallet, cents);
            }
            awaitDurable(end);
            return seq;
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
        }
        String rec = seq + ";" + Instant.now() + ";" + wallet + ";CREDIT;" + cents + "\n";
        ByteBuffer buf = ByteBuffer.wrap(rec.getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) {
            written += channel.write(buf);
        }
        return written;
    }

    /** Forces the file unless a force that started after our append already covered it. */
    private void awaitDurable(long end) throws IOException {
        synchronized (durableLock) {
            if (durableUpTo >= end) {
                return;
            }
            long upTo;
            synchronized (this) {
                upTo = written;
            }
            channel.force(false);
            durableUpTo = Math.max(durableUpTo, upTo);
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // stopping
        }
    }
}
