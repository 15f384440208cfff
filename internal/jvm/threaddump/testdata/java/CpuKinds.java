// CpuKinds: one JVM per mechanism of the catalogue that plain JDK code can
// reproduce, for the dumps its signatures are tested on. Run:
// java CpuKinds.java MODE [seconds-to-live]; prints READY <pid> once the
// request threads ("http-nio-8080-exec-N", 8 of them) loop over the work.
//
//   format        String.format with floats and padding
//   regex         a backtracking pattern ((a+)+b) over a failing input
//   compile       Pattern.compile on every request
//   hashing       SHA-256 over 64 KiB
//   crypto        SHA256withRSA signatures (2048-bit key)
//   compression   GZIPOutputStream (Deflater level 6) of 64 KiB of text
//   serialization ObjectOutputStream/ObjectInputStream round trip of a map
//   exceptions    a RuntimeException created 60 frames deep, caught
//   reflection    getDeclaredMethods/getMethod on JDK classes
//   xml           DocumentBuilderFactory.newInstance and a DOM parse
//   random        one java.util.Random shared by every request thread
//   synccoll      one Hashtable shared by every request thread
//   jul           java.util.logging through one FileHandler
//   fsync         each request writes its own file and forces it
//   dns           InetAddress.getByName of a name per request, resolved (no cache:
//                 sun.net.inetaddr.ttl=0) from a 20,000-line hosts file
//                 (jdk.net.hosts.file): a slow name service, no network
//   console       println of a 200-character line on one PrintStream shared by
//                 all (as System.out is), over /dev/null
import java.io.*;
import java.net.*;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.*;
import java.security.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.*;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import javax.xml.parsers.DocumentBuilderFactory;

public class CpuKinds {
    static final int REQUEST_THREADS = 8;
    static volatile Object sink;
    static final Pattern BACKTRACK = Pattern.compile("(a+)+b");
    static final Random SHARED = new Random(42);
    static final Hashtable<Integer, String> TABLE = new Hashtable<>();
    static final String[] VALUES = new String[100];
    static final byte[] BLOB = new byte[64 * 1024];
    static final String TEXT;
    static final byte[] XML;
    static KeyPair keys;
    static final Logger LOG = Logger.getLogger("orders");
    static final String LINE = "x".repeat(200);
    static PrintStream CONSOLE;

    static {
        new Random(1).nextBytes(BLOB);
        for (int i = 0; i < VALUES.length; i++) {
            VALUES[i] = "order-" + i;
        }
        StringBuilder sb = new StringBuilder();
        while (sb.length() < 64 * 1024) {
            sb.append("order ").append(sb.length()).append(" shipped to warehouse ").append(sb.length() % 97).append('\n');
        }
        TEXT = sb.toString();
        StringBuilder x = new StringBuilder("<orders>");
        for (int i = 0; i < 400; i++) {
            x.append("<order id=\"").append(i).append("\"><sku>A-").append(i * 7).append("</sku><qty>").append(i % 9).append("</qty></order>");
        }
        XML = x.append("</orders>").toString().getBytes();
    }

    // The "request" each mode runs; n is the request number.
    static void request(String mode, int n) throws Exception {
        switch (mode) {
            case "format" -> sink = String.format("%08.3f|%-12s|%,d|%x", n / 7.0, "sku-" + n, n * 1000L, n);
            case "regex" -> sink = BACKTRACK.matcher("aaaaaaaaaaaaaaaaaaaaaa!").matches();
            case "compile" -> sink = Pattern.compile("[a-z]+\\.[a-z]+@(example|test)\\.(com|org)").matcher("john.doe@example.com").matches();
            case "hashing" -> sink = MessageDigest.getInstance("SHA-256").digest(BLOB);
            case "crypto" -> {
                Signature s = Signature.getInstance("SHA256withRSA");
                s.initSign(keys.getPrivate());
                s.update(BLOB, 0, 1024);
                sink = s.sign();
            }
            case "compression" -> {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (GZIPOutputStream z = new GZIPOutputStream(out)) {
                    z.write(TEXT.getBytes());
                }
                sink = out.size();
            }
            case "serialization" -> {
                HashMap<String, Object> m = new HashMap<>();
                for (int i = 0; i < 500; i++) {
                    m.put("k" + i, List.of(i, "v" + i, (double) i));
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (ObjectOutputStream o = new ObjectOutputStream(out)) {
                    o.writeObject(m);
                }
                try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray()))) {
                    sink = in.readObject();
                }
            }
            case "exceptions" -> sink = deep(60, n);
            case "reflection" -> {
                for (Class<?> c : new Class<?>[] {String.class, HashMap.class, Thread.class, ArrayList.class}) {
                    sink = c.getDeclaredMethods();
                    sink = c.getMethod("toString");
                }
            }
            case "xml" -> sink = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(XML));
            case "random" -> {
                long s = 0;
                for (int i = 0; i < 1000; i++) {
                    s += SHARED.nextInt(1000);
                }
                sink = s;
            }
            case "synccoll" -> {
                for (int i = 0; i < 100; i++) {
                    TABLE.put((n + i) % 5000, VALUES[i]);
                    sink = TABLE.get(i);
                }
            }
            case "jul" -> LOG.info("order " + n + " placed");
            case "fsync" -> {
                Path p = Paths.get(System.getProperty("java.io.tmpdir"), "cpukinds-" + Thread.currentThread().getName());
                try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                    ch.write(ByteBuffer.wrap(BLOB, 0, 4096));
                    ch.force(true);
                }
            }
            case "dns" -> sink = InetAddress.getByName("host-" + (n % 20000) + ".orders.internal");
            case "console" -> CONSOLE.println("order " + n + " " + LINE);
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    static int deep(int depth, int n) {
        if (depth > 0) {
            return deep(depth - 1, n) + 1;
        }
        try {
            throw new IllegalStateException("order " + n + " not found");
        } catch (IllegalStateException e) {
            return e.getMessage().length();
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        long live = args.length > 1 ? Long.parseLong(args[1]) : 60;
        if (mode.equals("crypto")) {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            keys = g.generateKeyPair();
        }
        if (mode.equals("dns")) {
            Path hosts = Files.createTempFile("cpukinds-hosts", ".txt");
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(hosts))) {
                for (int i = 0; i < 20000; i++) {
                    w.println("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255) + " host-" + i + ".orders.internal");
                }
            }
            hosts.toFile().deleteOnExit();
            System.setProperty("jdk.net.hosts.file", hosts.toString());
            System.setProperty("sun.net.inetaddr.ttl", "0");
        }
        if (mode.equals("console")) {
            CONSOLE = new PrintStream(new FileOutputStream("/dev/null"), true);
        }
        if (mode.equals("jul")) {
            LOG.setUseParentHandlers(false);
            FileHandler h = new FileHandler(System.getProperty("java.io.tmpdir") + "/cpukinds-jul.log");
            h.setFormatter(new SimpleFormatter());
            LOG.addHandler(h);
        }
        AtomicInteger names = new AtomicInteger(), count = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(REQUEST_THREADS,
            r -> new Thread(r, "http-nio-8080-exec-" + names.incrementAndGet()));
        for (int t = 0; t < REQUEST_THREADS; t++) {
            pool.submit(() -> {
                while (true) {
                    request(mode, count.incrementAndGet());
                }
            });
        }
        Thread.sleep(1500); // warm-up: the JIT compiles the loops
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(live * 1000);
        System.exit(0);
    }
}
