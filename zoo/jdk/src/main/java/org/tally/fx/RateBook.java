package org.tally.fx;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The day's reference rates. A loader thread fetches them from the treasury feed at start-up;
 * readers wait for that first load (bounded: after the timeout they get the fallback table).
 *
 * The bug: the loader thread is created in the constructor, but starting it moved to
 * {@link #startLoading()} in a refactoring and nothing calls that any more, so {@code loaded} is
 * never counted down and every reader waits the whole timeout.
 */
final class RateBook {
    static final class Rates {
        final Map<String, Double> perEuro;
        final String source;

        Rates(Map<String, Double> perEuro, String source) {
            this.perEuro = perEuro;
            this.source = source;
        }

        double perEuro(String ccy) {
            Double r = perEuro.get(ccy);
            if (r == null) {
                throw new IllegalArgumentException("unknown currency " + ccy);
            }
            return r;
        }
    }

    private static final long FIRST_LOAD_TIMEOUT_MS = 2_000;
    private static final Rates FALLBACK = new Rates(Map.of("EUR", 1.0, "USD", 1.05, "GBP", 0.86, "CHF", 0.95, "JPY", 160.0), "fallback");

    private final CountDownLatch loaded = new CountDownLatch(1);
    private final Thread loader = new Thread(this::load, "fx-rate-loader");
    private volatile Rates rates = FALLBACK;

    RateBook() {
        loader.setDaemon(true);
    }

    void startLoading() {
        loader.start();
    }

    Rates current() throws InterruptedException {
        if (!loaded.await(FIRST_LOAD_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            return FALLBACK;
        }
        return rates;
    }

    private void load() {
        // The treasury feed (a fixed table here).
        rates = new Rates(Map.of("EUR", 1.0, "USD", 1.0842, "GBP", 0.8571, "CHF", 0.9415, "JPY", 163.21), "treasury");
        loaded.countDown();
    }
}
