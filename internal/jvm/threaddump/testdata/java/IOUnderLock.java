// IOUnderLock: three application locks whose holders do I/O inside the
// critical section, each wanted by four workers:
//   Journal     holder blocked in FileChannel.write to a FIFO nobody drains
//   AuditLog    holder blocked in FileOutputStream.write to another FIFO
//   PriceClient holder blocked in a socket read from a server that never answers
// Run: java IOUnderLock.java [seconds-to-live]; prints READY when the state is set.
import java.io.*;
import java.net.*;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.*;
import java.util.concurrent.CountDownLatch;

public class IOUnderLock {
    static final class Journal {
        final FileChannel ch;
        Journal(Path p) throws IOException { ch = FileChannel.open(p, StandardOpenOption.WRITE); }
        synchronized void append(byte[] rec) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(rec);
            while (b.hasRemaining()) ch.write(b);
        }
    }

    static final class AuditLog {
        final OutputStream out;
        AuditLog(Path p) throws IOException { out = new FileOutputStream(p.toFile()); }
        synchronized void write(byte[] rec) throws IOException { out.write(rec); }
    }

    static final class PriceClient {
        final Socket s;
        PriceClient(int port) throws IOException { s = new Socket("127.0.0.1", port); }
        synchronized int quote() throws IOException { return s.getInputStream().read(); }
    }

    // fifo creates a named pipe and keeps a reader open that never reads, so
    // writes block once the pipe buffer is full.
    static Path fifo(Path dir, String name) throws Exception {
        Path p = dir.resolve(name);
        if (new ProcessBuilder("mkfifo", p.toString()).inheritIO().start().waitFor() != 0) throw new IOException("mkfifo " + p);
        Thread r = new Thread(() -> {
            try (FileInputStream in = new FileInputStream(p.toFile())) { Thread.sleep(Long.MAX_VALUE); } catch (Exception e) { }
        }, "fifo-reader-" + name);
        r.setDaemon(true);
        r.start();
        return p;
    }

    static void spawn(String name, CountDownLatch started, ThrowingRunnable body) {
        Thread t = new Thread(() -> {
            started.countDown();
            try { body.run(); } catch (Exception e) { }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    interface ThrowingRunnable { void run() throws Exception; }

    public static void main(String[] args) throws Exception {
        int ttl = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        Path dir = Files.createTempDirectory("iolock");
        dir.toFile().deleteOnExit();
        Journal journal = new Journal(fifo(dir, "journal"));
        AuditLog audit = new AuditLog(fifo(dir, "audit"));
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            try { while (true) server.accept(); } catch (IOException e) { }
        }, "price-server");
        acceptor.setDaemon(true);
        acceptor.start();
        PriceClient prices = new PriceClient(server.getLocalPort());

        byte[] big = new byte[1 << 20]; // more than a pipe holds
        CountDownLatch holders = new CountDownLatch(3);
        spawn("journal-writer", holders, () -> journal.append(big));
        spawn("audit-writer", holders, () -> audit.write(big));
        spawn("price-fetcher", holders, prices::quote);
        holders.await();
        Thread.sleep(500); // the holders are inside their I/O
        CountDownLatch workers = new CountDownLatch(12);
        for (int i = 1; i <= 4; i++) {
            spawn("order-worker-" + i, workers, () -> journal.append(new byte[64]));
            spawn("audit-worker-" + i, workers, () -> audit.write(new byte[64]));
            spawn("quote-worker-" + i, workers, prices::quote);
        }
        workers.await();
        Thread.sleep(300);
        System.out.println("READY " + ProcessHandle.current().pid());
        Thread.sleep(ttl * 1000L);
        for (String f : new String[] {"journal", "audit"}) Files.deleteIfExists(dir.resolve(f));
        Files.deleteIfExists(dir);
        System.exit(0);
    }
}
