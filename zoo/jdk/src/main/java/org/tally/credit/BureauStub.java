package org.tally.credit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Stands in for the credit bureau, a remote partner in production: a minimal HTTP/1.1 responder
 * that answers each GET /v2/score after ~25 ms (its latency) from a timer, in one write, without
 * holding a thread meanwhile. Listens on an ephemeral port of 127.0.0.1.
 */
final class BureauStub {
    private static final long LATENCY_MS = 25;
    private final ServerSocket server;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "bureau-latency"));

    private BureauStub(ServerSocket server) {
        this.server = server;
    }

    static BureauStub start() throws IOException {
        BureauStub stub = new BureauStub(new ServerSocket(0, 256, InetAddress.getLoopbackAddress()));
        daemon(stub::acceptLoop, "bureau-acceptor").start();
        return stub;
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                daemon(() -> serve(s), "bureau-conn").start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = s.getOutputStream();
            for (String requestLine; (requestLine = in.readLine()) != null; ) {
                for (String h; (h = in.readLine()) != null && !h.isEmpty(); ) {
                    // headers: a GET has no body
                }
                String score = Integer.toString(450 + Math.floorMod(requestLine.hashCode(), 400));
                byte[] res = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + score.length() + "\r\n\r\n" + score)
                        .getBytes(StandardCharsets.US_ASCII);
                timer.schedule(() -> {
                    try {
                        synchronized (out) {
                            out.write(res);
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

    void stop() {
        try {
            server.close();
        } catch (IOException ignored) {
            // stopping anyway
        }
        timer.shutdownNow();
    }
}
