package com.northwind.storefront.inventory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Places stock holds in the warehouse system. A failed hold is retried with exponential backoff:
 * the warehouse answers BUSY under load, which a retry fixes. It also answers ALREADY_HELD when the
 * basket already holds the item, which no retry can change.
 */
@Component
public class WarehouseClient {
    public enum Outcome { HELD, BUSY, ALREADY_HELD }

    private static final int MAX_ATTEMPTS = 3;
    private static final long FIRST_BACKOFF_MS = 100;

    private final boolean retryOnlyTransient;
    // The warehouse's holds, keyed by basket and SKU (the warehouse side, in memory here).
    private final Set<String> holds = ConcurrentHashMap.newKeySet();

    public WarehouseClient(@Value("${inventory.reservation.retry-only-transient}") boolean retryOnlyTransient) {
        this.retryOnlyTransient = retryOnlyTransient;
    }

    public Outcome hold(String basket, String sku, int quantity) throws InterruptedException {
        long backoff = FIRST_BACKOFF_MS;
        Outcome outcome = Outcome.BUSY;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            outcome = send(basket, sku, quantity);
            if (outcome == Outcome.HELD || (retryOnlyTransient && outcome != Outcome.BUSY) || attempt == MAX_ATTEMPTS) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(backoff);
            backoff *= 2;
        }
        return outcome;
    }

    private Outcome send(String basket, String sku, int quantity) {
        if (quantity <= 0) {
            return Outcome.BUSY;
        }
        return holds.add(basket + "/" + sku) ? Outcome.HELD : Outcome.ALREADY_HELD;
    }
}
