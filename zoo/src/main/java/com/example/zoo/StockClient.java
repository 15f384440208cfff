package com.example.zoo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * remote-call: each request asks a stock service for the quantity over a plain blocking socket
 * (2 s read timeout). The stock service is a TCP server the zoo starts on 127.0.0.1 (an
 * ephemeral port, one selector thread "stock-remote"), which accepts and reads but never
 * answers: every request waits the whole 2 s and then falls back to a default quantity (still
 * 200, as a service with a fallback answers). Throughput is users / 2 s; a thread dump shows the
 * http-nio-*-exec-* threads RUNNABLE in a socket read (NioSocketImpl.timedRead / Net.poll)
 * under StockClient.remoteStock, connected to 127.0.0.1:PORT.
 *
 * <p>--fixed: the remote answers at once.
 */
final class StockClient implements Scenario {
    static final int READ_TIMEOUT_MS = 2000;

    private final Config cfg;
    private ServerSocketChannel server;
    private Selector selector;
    private Thread remote;
    private int remotePort;
    /** Idle connections to the remote, reused (a socket that timed out is closed instead). */
    private final ConcurrentLinkedQueue<Socket> idle = new ConcurrentLinkedQueue<>();
    private final AtomicLong fallbacks = new AtomicLong();

    StockClient(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public void start() throws IOException {
        selector = Selector.open();
        server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        remotePort = ((InetSocketAddress) server.getLocalAddress()).getPort();
        boolean answer = cfg.fixed;
        remote = new Thread(() -> serve(answer), "stock-remote");
        remote.setDaemon(true);
        remote.start();
    }

    /**
     * The remote stock service: one selector loop. It reads every request line; when it does not
     * answer (the broken variant) the client's read times out.
     */
    private void serve(boolean answer) {
        ByteBuffer buf = ByteBuffer.allocate(4096);
        byte[] reply = "42\n".getBytes(StandardCharsets.US_ASCII);
        try {
            while (!Thread.currentThread().isInterrupted()) {
                selector.select();
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    if (!k.isValid()) {
                        continue;
                    }
                    if (k.isAcceptable()) {
                        SocketChannel c = server.accept();
                        if (c != null) {
                            c.configureBlocking(false);
                            c.register(selector, SelectionKey.OP_READ);
                        }
                    } else if (k.isReadable()) {
                        SocketChannel c = (SocketChannel) k.channel();
                        buf.clear();
                        int n;
                        try {
                            n = c.read(buf);
                        } catch (IOException e) {
                            n = -1;
                        }
                        if (n < 0) {
                            k.cancel();
                            c.close();
                            continue;
                        }
                        if (answer) {
                            // One reply per request line.
                            for (int i = 0; i < buf.position(); i++) {
                                if (buf.get(i) == '\n') {
                                    c.write(ByteBuffer.wrap(reply));
                                }
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            System.err.println("zoo: stock-remote stopped: " + e);
        }
    }

    /** One call to the remote: a request line, then a blocking read of the answer line. */
    int remoteStock(String sku) throws IOException {
        Socket s = idle.poll();
        if (s == null) {
            s = new Socket();
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), remotePort), 1000);
            s.setSoTimeout(READ_TIMEOUT_MS);
        }
        boolean reuse = false;
        try {
            OutputStream out = s.getOutputStream();
            out.write(("STOCK " + sku + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            int v = 0;
            int b;
            while ((b = in.read()) != '\n') {
                if (b < 0) {
                    throw new IOException("stock service closed the connection");
                }
                v = v * 10 + (b - '0');
            }
            reuse = true;
            return v;
        } finally {
            if (reuse) {
                idle.add(s);
            } else {
                s.close();
            }
        }
    }

    @Override
    public String handle(long n, Map<String, String> query) throws Exception {
        String sku = query.getOrDefault("sku", "SKU-" + (n % 100));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sku", sku);
        try {
            m.put("stock", remoteStock(sku));
        } catch (SocketTimeoutException e) {
            // The fallback a real service has: answer with a default and count it.
            m.put("stock", 0);
            m.put("fallback", fallbacks.incrementAndGet());
        }
        return Json.obj(m);
    }

    @Override
    public void stop() {
        if (remote != null) {
            remote.interrupt();
        }
        try {
            if (selector != null) {
                selector.close();
            }
            if (server != null) {
                server.close();
            }
        } catch (IOException ignored) {
            // shutting down
        }
        Socket s;
        while ((s = idle.poll()) != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // shutting down
            }
        }
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "remote-call (fixed): the stock service on 127.0.0.1:" + remotePort + " answers at once"
                : "remote-call: every request reads from a stock service on 127.0.0.1:" + remotePort + " that never answers (" + READ_TIMEOUT_MS + " ms read timeout, then a fallback)";
    }
}
