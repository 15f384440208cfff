package com.example.zoo;

import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * sync-logging: every request writes 10 audit lines through SLF4J to logback. With
 * logback-sync.xml the request threads write the file themselves, one at a time, under the
 * appender's lock (OutputStreamAppender.writeBytes, a ReentrantLock): a thread dump shows most
 * http-nio-*-exec-* threads WAITING (parking) on a ReentrantLock$NonfairSync below
 * ch.qos.logback.core.OutputStreamAppender.writeBytes, and a CPU profile is dominated by
 * logback (caller data, formatting) as in seed 002.
 *
 * <p>--fixed selects logback-async.xml: the same appender behind an AsyncAppender.
 *
 * <p>As sync-logging-sift (seed 004) the same code logs through logback-sift.xml: a
 * SiftingAppender (per-tenant files) whose synchronized AppenderBase.doAppend serialises the
 * callers (BLOCKED on the ch.qos.logback.classic.sift.SiftingAppender monitor); --fixed wraps it
 * in an AsyncAppender (logback-sift-async.xml).
 */
final class OrderAuditLogback implements Scenario {
    private static final Logger LOG = LoggerFactory.getLogger(OrderAuditLogback.class);
    static final int LINES = 10;

    private final Config cfg;

    OrderAuditLogback(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public String handle(long n, Map<String, String> query) {
        Order o = Order.of(n, query);
        MDC.put("traceId", o.traceId);
        MDC.put("tenant", o.tenant);
        try {
            placeOrder(o);
            // --work-pct above 100: that many more audit lines, in the same order again.
            for (int i = LINES; i < LINES * cfg.workPct / 100; i++) {
                auditAgain(o, i % LINES);
            }
        } finally {
            MDC.remove("traceId");
            MDC.remove("tenant");
        }
        return o.json();
    }

    /** The business method: a little work and the audit trail an enterprise service writes. */
    private static void placeOrder(Order o) {
        LOG.info("received order {} from customer {} channel={} items={} payload={}", o.id, o.customer, o.channel, o.items, o.payload);
        LOG.info("validating order {}: sku={} qty={} priceCents={} currency=CNY customerLevel={}", o.id, o.sku, o.qty, o.priceCents, o.level);
        LOG.info("risk check order {} customer {}: score={} rules=[velocity,geo,device,blacklist] decision=PASS", o.id, o.customer, o.risk);
        LOG.info("inventory reserve order {} sku={} qty={} warehouse=WH-{} result=RESERVED", o.id, o.sku, o.qty, o.id % 7);
        LOG.info("pricing order {}: base={} discount={} tax={} total={} coupon={}", o.id, o.priceCents, o.discount, o.tax, o.total, o.coupon);
        LOG.info("payment order {}: method=CARD card=****{} amount={} currency=CNY status=AUTHORIZED", o.id, o.card, o.total);
        LOG.info("persist order {}: table=t_order shard={} rows=1 sql=INSERT INTO t_order(id,customer,sku,qty,total) VALUES(?,?,?,?,?)", o.id, o.id % 16);
        LOG.info("publish order {} event=ORDER_CREATED topic=order-events partition={} payload={}", o.id, o.id % 12, o.payload);
        LOG.info("notify customer {} order {} via SMS template=ORDER_OK mobile=138****{}", o.customer, o.id, o.card);
        LOG.info("completed order {} in pipeline stages=9 total={} traceId={}", o.id, o.total, o.traceId);
    }

    /** One more audit line (the line-th of placeOrder's), for --work-pct. */
    private static void auditAgain(Order o, int line) {
        switch (line) {
            case 0: LOG.info("received order {} from customer {} channel={} items={} payload={}", o.id, o.customer, o.channel, o.items, o.payload); break;
            case 1: LOG.info("validating order {}: sku={} qty={} priceCents={} currency=CNY customerLevel={}", o.id, o.sku, o.qty, o.priceCents, o.level); break;
            case 2: LOG.info("risk check order {} customer {}: score={} rules=[velocity,geo,device,blacklist] decision=PASS", o.id, o.customer, o.risk); break;
            case 3: LOG.info("inventory reserve order {} sku={} qty={} warehouse=WH-{} result=RESERVED", o.id, o.sku, o.qty, o.id % 7); break;
            case 4: LOG.info("pricing order {}: base={} discount={} tax={} total={} coupon={}", o.id, o.priceCents, o.discount, o.tax, o.total, o.coupon); break;
            case 5: LOG.info("payment order {}: method=CARD card=****{} amount={} currency=CNY status=AUTHORIZED", o.id, o.card, o.total); break;
            case 6: LOG.info("persist order {}: table=t_order shard={} rows=1 sql=INSERT INTO t_order(id,customer,sku,qty,total) VALUES(?,?,?,?,?)", o.id, o.id % 16); break;
            case 7: LOG.info("publish order {} event=ORDER_CREATED topic=order-events partition={} payload={}", o.id, o.id % 12, o.payload); break;
            case 8: LOG.info("notify customer {} order {} via SMS template=ORDER_OK mobile=138****{}", o.customer, o.id, o.card); break;
            default: LOG.info("completed order {} in pipeline stages=9 total={} traceId={}", o.id, o.total, o.traceId);
        }
    }

    @Override
    public String describe() {
        String target = cfg.scenario.endsWith("sift") ? "SiftingAppender (per-tenant RollingFileAppender)" : "RollingFileAppender";
        return cfg.fixed
                ? cfg.scenario + " (fixed): " + LINES + " log lines/request via SLF4J -> logback AsyncAppender(queueSize=8192, neverBlock=true) -> " + target
                : cfg.scenario + ": " + LINES * cfg.workPct / 100 + " log lines/request via SLF4J -> logback synchronous " + target + " (immediateFlush=true, caller data)";
    }
}
