package com.example.zoo;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * deadlock: every 10th request (after --deadlock-after requests) is a transfer between two of
 * the {@link #CLEARING} clearing accounts, in either direction (settlement runs both ways).
 * {@link #transfer} locks the source account, then the target: two transfers in opposite
 * directions deadlock on the two Account monitors (a real Java-level deadlock,
 * "Found one Java-level deadlock" in jstack). Every later transfer that touches a stuck account
 * blocks forever too, so a growing part of the http-nio-*-exec-* workers hangs BLOCKED on
 * com.example.zoo.AccountService$Account while the others keep serving balance reads, until the
 * pool (and the load generator's connections) are used up.
 *
 * <p>--fixed: both monitors are taken in a global order (lower account id first).
 */
final class AccountService implements Scenario {
    static final int ACCOUNTS = 32;
    /**
     * Transfers move money between the first few accounts only: with few accounts two opposite
     * transfers meet within the first second under load, so the deadlock forms every run rather
     * than by chance (1 pair in 12 instead of 1 in 992 with random accounts).
     */
    static final int CLEARING = 4;

    /** One account; its monitor guards its balance. */
    static final class Account {
        final int id;
        long balanceCents = 1_000_000_00L;
        long version;

        Account(int id) {
            this.id = id;
        }
    }

    private final Config cfg;
    private final Account[] accounts = new Account[ACCOUNTS];

    AccountService(Config cfg) {
        this.cfg = cfg;
        for (int i = 0; i < ACCOUNTS; i++) {
            accounts[i] = new Account(i);
        }
    }

    /** The bug: lock order follows the request (from, then to). */
    long transfer(Account from, Account to, long cents) {
        synchronized (from) {
            long audit = auditHash(from, cents);
            synchronized (to) {
                return move(from, to, cents) ^ audit;
            }
        }
    }

    /** The fix: always lock the lower id first. */
    long transferOrdered(Account from, Account to, long cents) {
        Account first = from.id < to.id ? from : to;
        Account second = first == from ? to : from;
        synchronized (first) {
            long audit = auditHash(from, cents);
            synchronized (second) {
                return move(from, to, cents) ^ audit;
            }
        }
    }

    private static long move(Account from, Account to, long cents) {
        from.balanceCents -= cents;
        to.balanceCents += cents;
        from.version++;
        to.version++;
        return from.version + to.version;
    }

    /**
     * Some work while holding the first lock (signing an audit record, about 0.1 ms of CPU): the
     * race window in which the opposite transfer takes the other lock.
     */
    private static long auditHash(Account a, long cents) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] d = new byte[64];
        d[0] = (byte) a.id;
        d[1] = (byte) cents;
        for (int i = 0; i < 150; i++) {
            md.update(d);
            d = md.digest();
        }
        return ((d[0] & 0xffL) << 8) | (d[1] & 0xffL);
    }

    @Override
    public String handle(long n, Map<String, String> query) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        Map<String, Object> m = new LinkedHashMap<>();
        if (n > cfg.deadlockAfter && n % 10 == 0) {
            int a = r.nextInt(CLEARING);
            int b = (a + 1 + r.nextInt(CLEARING - 1)) % CLEARING;
            long cents = 1 + r.nextInt(10000);
            long v = cfg.fixed ? transferOrdered(accounts[a], accounts[b], cents) : transfer(accounts[a], accounts[b], cents);
            m.put("op", "transfer");
            m.put("from", a);
            m.put("to", b);
            m.put("cents", cents);
            m.put("version", v);
        } else {
            int a = r.nextInt(ACCOUNTS);
            m.put("op", "balance");
            m.put("account", a);
            m.put("balanceCents", accounts[a].balanceCents); // a racy read is fine for a balance page
        }
        return Json.obj(m);
    }

    @Override
    public String describe() {
        return cfg.fixed
                ? "deadlock (fixed): transfers lock both accounts in id order"
                : "deadlock: after " + cfg.deadlockAfter + " requests, 1 in 10 requests is a transfer locking (from, to): opposite transfers deadlock";
    }
}
