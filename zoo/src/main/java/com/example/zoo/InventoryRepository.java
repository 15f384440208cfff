package com.example.zoo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * pool-starvation: every request runs one slow query (about 20 ms in the database: the H2
 * function SLOW_STOCK stands for a slow SQL on a loaded database) through a HikariCP pool of 4
 * connections, while up to --threads Tomcat workers want one. A thread dump shows most
 * http-nio-*-exec-* threads TIMED_WAITING in com.zaxxer.hikari.util.ConcurrentBag.borrow under
 * HikariPool.getConnection, and 4 threads inside H2 (the connection holders).
 *
 * <p>--fixed: maximumPoolSize sized to the request concurrency (64), which a database that
 * answers in 20 ms regardless of load can serve.
 */
final class InventoryRepository implements Scenario {
    static final int BROKEN_POOL = 4;
    static final int FIXED_POOL = 64;
    static final int QUERY_MS = 20;

    private final Config cfg;
    private HikariDataSource ds;

    InventoryRepository(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public void start() throws SQLException {
        HikariConfig hc = new HikariConfig();
        hc.setPoolName("inventory-pool");
        hc.setJdbcUrl("jdbc:h2:mem:inventory;DB_CLOSE_DELAY=-1");
        hc.setUsername("sa");
        hc.setPassword("");
        int size = cfg.fixed ? Math.min(FIXED_POOL, Math.max(cfg.threads, BROKEN_POOL)) : BROKEN_POOL;
        hc.setMaximumPoolSize(size);
        hc.setMinimumIdle(size);
        hc.setConnectionTimeout(30_000);
        ds = new HikariDataSource(hc);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE ALIAS IF NOT EXISTS SLOW_STOCK FOR 'com.example.zoo.StockFunctions.slowStock'");
            st.execute("CREATE TABLE IF NOT EXISTS inventory(sku VARCHAR(32) PRIMARY KEY, warehouse INT, reserved INT)");
            st.execute("DELETE FROM inventory");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO inventory VALUES(?, ?, 0)")) {
                for (int i = 0; i < 100; i++) {
                    ps.setString(1, "SKU-" + i);
                    ps.setInt(2, i % 7);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    }

    @Override
    public String handle(long n, Map<String, String> query) throws SQLException {
        String sku = query.getOrDefault("sku", "SKU-" + (n % 100));
        Map<String, Object> m = new LinkedHashMap<>();
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT warehouse, SLOW_STOCK(sku, ?) - reserved FROM inventory WHERE sku = ?")) {
            ps.setInt(1, QUERY_MS);
            ps.setString(2, sku);
            try (ResultSet rs = ps.executeQuery()) {
                m.put("sku", sku);
                if (rs.next()) {
                    m.put("warehouse", rs.getInt(1));
                    m.put("available", rs.getInt(2));
                } else {
                    m.put("available", 0);
                }
            }
        }
        return Json.obj(m);
    }

    @Override
    public void stop() {
        if (ds != null) {
            ds.close();
        }
    }

    @Override
    public String describe() {
        return String.format("pool-starvation%s: HikariCP maximumPoolSize=%d, H2 query ~%d ms, %d Tomcat workers",
                cfg.fixed ? " (fixed)" : "", cfg.fixed ? Math.min(FIXED_POOL, Math.max(cfg.threads, BROKEN_POOL)) : BROKEN_POOL,
                QUERY_MS, cfg.threads);
    }
}
