package io.parcelhub.edge;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Client of the geo directory's line protocol ("REGION a.b.c.d\n" -> "eu-west\n"). One connection
 * per calling thread, kept open; a broken connection is reopened on the next call.
 */
final class GeoDirectoryClient {
    private final InetSocketAddress address;
    private final ThreadLocal<Conn> conns = new ThreadLocal<>();

    private static final class Conn {
        final Socket socket;
        final BufferedReader in;
        final OutputStream out;

        Conn(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            this.out = socket.getOutputStream();
        }
    }

    GeoDirectoryClient(InetSocketAddress address) {
        this.address = address;
    }

    String regionOf(String ip) throws IOException {
        Conn c = conns.get();
        if (c == null || c.socket.isClosed()) {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.setSoTimeout(5000);
            s.connect(address, 2000);
            c = new Conn(s);
            conns.set(c);
        }
        try {
            c.out.write(("REGION " + ip + "\n").getBytes(StandardCharsets.US_ASCII));
            c.out.flush();
            String line = c.in.readLine();
            if (line == null) {
                throw new IOException("geo directory closed the connection");
            }
            return line;
        } catch (IOException e) {
            c.socket.close();
            throw e;
        }
    }
}
