package org.tally.clickstream;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

/**
 * A handler that only queues the record; one daemon thread publishes to the real handler and flushes
 * when the queue runs empty. A full queue drops the record (counted) rather than block the caller.
 */
final class QueueingHandler extends Handler {
    private final Handler target;
    private final BlockingQueue<LogRecord> queue;
    private final Thread drainer;
    private volatile long dropped;

    QueueingHandler(Handler target, int capacity) {
        this.target = target;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.drainer = new Thread(this::drain, "event-log-writer");
        drainer.setDaemon(true);
        drainer.start();
    }

    @Override
    public void publish(LogRecord record) {
        if (!queue.offer(record)) {
            dropped++;
        }
    }

    private void drain() {
        try {
            while (true) {
                LogRecord r = queue.poll(1, TimeUnit.SECONDS);
                if (r != null) {
                    target.publish(r);
                }
                if (queue.isEmpty()) {
                    target.flush();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void flush() {
        target.flush();
    }

    @Override
    public void close() {
        drainer.interrupt();
        for (LogRecord r; (r = queue.poll()) != null; ) {
            target.publish(r);
        }
        target.close();
        if (dropped > 0) {
            System.err.println("event log: " + dropped + " records dropped (queue full)");
        }
    }
}
