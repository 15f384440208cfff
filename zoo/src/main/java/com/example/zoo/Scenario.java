package com.example.zoo;

import java.util.Map;

/**
 * One service behaviour behind GET /api. Implementations do the real work of the
 * bottleneck they reproduce (a lock, a pool, an fsync, an allocation pattern), never
 * a sleep that fakes it.
 */
public interface Scenario {
    /** Called once before the HTTP server starts (open files, pools, warm caches). */
    default void start() throws Exception {}

    /** Handles one request and returns the JSON body. {@code n} is the request sequence number. */
    String handle(long n, Map<String, String> query) throws Exception;

    /** Called on shutdown. */
    default void stop() {}

    /**
     * True when the scenario serves HTTP itself ({@link #serve}) instead of through Tomcat
     * (delayed-ack: Tomcat always turns TCP_NODELAY on).
     */
    default boolean ownsHttp() {
        return false;
    }

    /** Serves /api, /health, /info and /stop on the configured port until stopped (ownsHttp only). */
    default void serve() throws Exception {
        throw new UnsupportedOperationException("serves through Tomcat");
    }

    /** One line describing what this instance does (printed at startup). */
    String describe();
}
