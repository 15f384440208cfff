package com.example.zoo;

import java.nio.file.Path;
import java.nio.file.Paths;

/** Command-line options. */
final class Config {
    String scenario = "healthy";
    boolean fixed;
    int port = 8080;
    int threads = 200;
    String bind = "127.0.0.1";
    Path logDir = Paths.get("/tmp/zoo-logs");
    Path dataDir = Paths.get("/tmp/zoo-data");
    /** deadlock: requests served before the deadlock-prone path is enabled. */
    long deadlockAfter = 200;
    /**
     * cpu-hot, sync-logging: the per-request work in percent of the scenario's own (110: 10% more
     * checksum lines or log lines). A known slowdown for measuring a regression gate's power.
     */
    int workPct = 100;

    static Config parse(String[] args) {
        Config c = new Config();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                v = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            switch (a) {
                case "--fixed": c.fixed = v == null || Boolean.parseBoolean(v); break;
                case "--scenario": c.scenario = v != null ? v : need(args, ++i, a); break;
                case "--port": c.port = Integer.parseInt(v != null ? v : need(args, ++i, a)); break;
                case "--threads": c.threads = Integer.parseInt(v != null ? v : need(args, ++i, a)); break;
                case "--bind": c.bind = v != null ? v : need(args, ++i, a); break;
                case "--log-dir": c.logDir = Paths.get(v != null ? v : need(args, ++i, a)); break;
                case "--data-dir": c.dataDir = Paths.get(v != null ? v : need(args, ++i, a)); break;
                case "--deadlock-after": c.deadlockAfter = Long.parseLong(v != null ? v : need(args, ++i, a)); break;
                case "--work-pct": c.workPct = Integer.parseInt(v != null ? v : need(args, ++i, a)); break;
                case "--list": Main.printList(); System.exit(0); break;
                case "-h": case "--help": Main.usage(System.out); System.exit(0); break;
                default:
                    System.err.println("zoo: unknown argument " + args[i]);
                    Main.usage(System.err);
                    System.exit(2);
            }
        }
        if (c.threads < 1 || c.port < 0 || c.port > 65535 || c.workPct < 1 || c.workPct > 1000) {
            System.err.println("zoo: bad --threads, --port or --work-pct (1-1000)");
            System.exit(2);
        }
        return c;
    }

    private static String need(String[] args, int i, String flag) {
        if (i >= args.length) {
            System.err.println("zoo: " + flag + " needs a value");
            System.exit(2);
        }
        return args[i];
    }
}
