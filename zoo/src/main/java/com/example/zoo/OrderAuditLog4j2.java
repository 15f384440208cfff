package com.example.zoo;

import java.util.Map;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.ThreadContext;

/**
 * sync-logging-log4j2: every request writes 10 audit lines through the log4j2 API to a
 * synchronous RollingFile appender (log4j2-sync.xml, immediateFlush=true, location in the
 * pattern). A thread dump shows the http-nio-*-exec-* threads BLOCKED on the
 * org.apache.logging.log4j.core.appender.rolling.RollingFileManager monitor in
 * OutputStreamManager.writeBytes/flush.
 *
 * <p>--fixed selects log4j2-async.xml: an AsyncRoot (LMAX Disruptor) over a buffered RollingFile.
 */
final class OrderAuditLog4j2 implements Scenario {
    private static final Logger LOG = LogManager.getLogger(OrderAuditLog4j2.class);
    static final int LINES = 10;

    private final Config cfg;

    OrderAuditLog4j2(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public String handle(long n, Map<String, String> query) {
        Order o = Order.of(n, query);
        ThreadContext.put("traceId", o.traceId);
        try {
            placeOrder(o);
        } finally {
            ThreadContext.remove("traceId");
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

    @Override
    public String describe() {
        return cfg.fixed
                ? "sync-logging-log4j2 (fixed): " + LINES + " log lines/request via log4j2 AsyncRoot (LMAX Disruptor, queue-full policy Discard) -> buffered RollingFile"
                : "sync-logging-log4j2: " + LINES + " log lines/request via log4j2 -> synchronous RollingFile (immediateFlush=true, location)";
    }
}
