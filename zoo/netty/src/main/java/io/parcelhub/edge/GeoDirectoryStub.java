package io.parcelhub.edge;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Stands in for the geo directory, a separate service in production: it answers each REGION query
 * after ~15 ms (its lookup latency) from a timer, without holding a thread meanwhile. Listens on an
 * ephemeral port of 127.0.0.1.
 */
final class GeoDirectoryStub implements AutoCloseable {
    private static final long LATENCY_MS = 15;
    private static final String[] REGIONS = {"eu-west", "eu-central", "eu-south", "eu-north"};

    private final ServerSocket server;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "geo-directory-timer"));

    private GeoDirectoryStub(ServerSocket server) {
        this.server = server;
    }

    static GeoDirectoryStub start() throws IOException {
        ServerSocket ss = new ServerSocket(0, 256, InetAddress.getLoopbackAddress());
        GeoDirectoryStub stub = new GeoDirectoryStub(ss);
        daemon(stub::acceptLoop, "geo-directory-acceptor").start();
        return stub;
    }

    InetSocketAddress address() {
        return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                daemon(() -> serve(s), "geo-directory-conn").start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = s.getOutputStream();
            for (String line; (line = in.readLine()) != null; ) {
                String region = REGIONS[Math.floorMod(line.hashCode(), REGIONS.length)] + "\n";
                timer.schedule(() -> {
                    try {
                        synchronized (out) {
                            out.write(region.getBytes(StandardCharsets.US_ASCII));
                            out.flush();
                        }
                    } catch (IOException ignored) {
                        // the client went away
                    }
                }, LATENCY_MS, TimeUnit.MILLISECONDS);
            }
        } catch (IOException ignored) {
            // connection closed
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        timer.shutdownNow();
    }
}
