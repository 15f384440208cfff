package org.tally.statements;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** The last few rendered statements, kept for the download link. */
final class DownloadCache {
    private final Map<String, StatementExporter.Export> byId;
    private final AtomicLong nextId = new AtomicLong();

    DownloadCache(int capacity) {
        this.byId = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, StatementExporter.Export> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized String put(StatementExporter.Export export) {
        String id = "st-" + Long.toString(nextId.incrementAndGet(), 36);
        byId.put(id, export);
        return id;
    }

    synchronized StatementExporter.Export get(String id) {
        return byId.get(id);
    }
}
