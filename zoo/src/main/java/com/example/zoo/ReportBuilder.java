package com.example.zoo;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * gc-pressure: every request builds a statement report the wasteful way: materialises 2000 row
 * objects, renders them through a growing ByteArrayOutputStream with a fresh 256 KiB scratch
 * buffer, and keeps the rendered report (about 100 KiB) in a bounded LRU cache of 150 entries
 * (about 15 MiB live). Run it with a small heap (-Xmx64m, see README.md): the GC log shows
 * back-to-back young collections ("Pause Young (Normal) (G1 Evacuation Pause)", the unified
 * logging form of the seeds' "Allocation Failure"), growing old occupancy and mixed/full
 * collections; the threads spend their time in GC.
 *
 * <p>--fixed: rows are streamed into a per-thread reusable buffer, nothing per row is
 * allocated, and the cache keeps a 64-byte summary instead of the whole report.
 */
final class ReportBuilder implements Scenario {
    static final int ROWS = 2000;
    static final int CACHE_ENTRIES = 150;
    static final int KEYS = 1000;

    /** One statement line. */
    static final class Row {
        final long id;
        final String account;
        final String description;
        final long amountCents;

        Row(long id, String account, String description, long amountCents) {
            this.id = id;
            this.account = account;
            this.description = description;
            this.amountCents = amountCents;
        }
    }

    private final Config cfg;
    private final Map<String, Object> cache = Collections.synchronizedMap(new LinkedHashMap<String, Object>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Object> e) {
            return size() > CACHE_ENTRIES;
        }
    });
    private final ThreadLocal<StringBuilder> scratch = ThreadLocal.withInitial(() -> new StringBuilder(128 * 1024));

    ReportBuilder(Config cfg) {
        this.cfg = cfg;
    }

    /** The wasteful report: rows as objects, a growing stream, a fresh scratch buffer, the whole result cached. */
    byte[] buildReport(long seed) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            rows.add(new Row(seed * ROWS + i, "6222-0200-" + (seed % 10000), "POS purchase merchant #" + (i * 31 % 977),
                    (i * 7919L) % 100000));
        }
        byte[] scratchBuf = new byte[256 * 1024];
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Row r : rows) {
            String line = r.id + "," + r.account + "," + r.description + "," + r.amountCents + "\n";
            byte[] b = line.getBytes(StandardCharsets.UTF_8);
            System.arraycopy(b, 0, scratchBuf, 0, b.length);
            out.write(scratchBuf, 0, b.length);
        }
        return out.toByteArray();
    }

    /** The fix: the same bytes streamed through a reused per-thread buffer; only a summary is kept. */
    long[] buildReportSummary(long seed) {
        StringBuilder sb = scratch.get();
        sb.setLength(0);
        CRC32 crc = new CRC32();
        long total = 0;
        for (int i = 0; i < ROWS; i++) {
            long amount = (i * 7919L) % 100000;
            sb.append(seed * ROWS + i).append(",6222-0200-").append(seed % 10000).append(",POS purchase merchant #")
                    .append(i * 31 % 977).append(',').append(amount).append('\n');
            total += amount;
        }
        for (int i = 0; i < sb.length(); i++) {
            crc.update(sb.charAt(i));
        }
        return new long[] {sb.length(), crc.getValue(), total};
    }

    @Override
    public String handle(long n, Map<String, String> query) {
        long seed = n % KEYS;
        String key = "stmt-" + seed;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("report", key);
        if (cfg.fixed) {
            long[] s = buildReportSummary(seed);
            cache.put(key, s);
            m.put("bytes", s[0]);
            m.put("crc", s[1]);
        } else {
            byte[] report = buildReport(seed);
            cache.put(key, report);
            CRC32 crc = new CRC32();
            crc.update(report);
            m.put("bytes", report.length);
            m.put("crc", crc.getValue());
        }
        m.put("cached", cache.size());
        return Json.obj(m);
    }

    @Override
    public String describe() {
        long max = Runtime.getRuntime().maxMemory() >> 20;
        String hint = max > 256 ? " WARNING: max heap " + max + "m; run with -Xmx64m -Xms64m to reproduce (see README.md)" : "";
        return cfg.fixed
                ? "gc-pressure (fixed): reused per-thread buffer, no per-row objects, compact summaries cached" + hint
                : "gc-pressure: ~1 MiB garbage per request + " + CACHE_ENTRIES + " x ~100 KiB reports retained; intended JVM options: -Xmx64m -Xms64m -Xlog:gc*:file=gc.log" + hint;
    }
}
