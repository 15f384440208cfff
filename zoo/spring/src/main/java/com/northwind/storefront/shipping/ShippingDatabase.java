package com.northwind.storefront.shipping;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.h2.tools.Server;
import org.springframework.boot.autoconfigure.jdbc.DataSourceProperties;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The shipping database. In production it is a separate server; here H2 runs in server mode on a
 * loopback port in the same process, so the application talks to it over TCP like to any database
 * and a slow statement is time spent on the server's side while the connection is held.
 */
@Configuration(proxyBeanMethods = false)
public class ShippingDatabase {

    @Bean(destroyMethod = "stop")
    Server shippingDbServer() throws SQLException {
        System.setProperty("h2.bindAddress", "127.0.0.1");
        return Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
    }

    @Bean
    @ConfigurationProperties("spring.datasource.hikari")
    HikariDataSource dataSource(Server shippingDbServer, DataSourceProperties props) throws SQLException {
        String url = "jdbc:h2:tcp://127.0.0.1:" + shippingDbServer.getPort() + "/mem:shipping;DB_CLOSE_DELAY=-1";
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS shipment (id BIGINT PRIMARY KEY, carrier VARCHAR(16), "
                    + "tracking_no VARCHAR(32), promised_at TIMESTAMP, status VARCHAR(16))");
            s.execute("CREATE INDEX IF NOT EXISTS shipment_carrier ON shipment(carrier, status, promised_at)");
            s.execute("MERGE INTO shipment SELECT X, CASE MOD(X, 4) WHEN 0 THEN 'ACME' WHEN 1 THEN 'SWIFT' "
                    + "WHEN 2 THEN 'NORTHLINE' ELSE 'PARCELCO' END, 'TRK' || LPAD(X, 10, '0'), "
                    + "DATEADD('HOUR', -MOD(X, 96), CURRENT_TIMESTAMP), "
                    + "CASE WHEN MOD(X, 7) = 0 THEN 'DELIVERED' ELSE 'IN_TRANSIT' END FROM SYSTEM_RANGE(1, 400)");
            s.execute("CREATE ALIAS IF NOT EXISTS OVERDUE_SHIPMENTS FOR \"" + ShippingDatabase.class.getName() + ".overdueShipments\"");
        }
        HikariDataSource ds = props.initializeDataSourceBuilder().type(HikariDataSource.class).url(url).build();
        return ds;
    }

    /**
     * The stored procedure OVERDUE_SHIPMENTS(carrier): asks the carrier's system for its contractual
     * cut-off through a database link (the ~25 ms that takes on the database server, a sleep here),
     * then selects the carrier's shipments in transit past it.
     */
    public static java.sql.ResultSet overdueShipments(Connection conn, String carrier) throws SQLException, InterruptedException {
        if (conn.getMetaData().getURL().equals("jdbc:columnlist:connection")) {
            // H2 asks for the result's columns when it compiles the CALL: no lookup, no query.
            org.h2.tools.SimpleResultSet columns = new org.h2.tools.SimpleResultSet();
            columns.addColumn("ID", java.sql.Types.BIGINT, 19, 0);
            columns.addColumn("TRACKING_NO", java.sql.Types.VARCHAR, 32, 0);
            columns.addColumn("PROMISED_AT", java.sql.Types.TIMESTAMP, 26, 6);
            return columns;
        }
        TimeUnit.MILLISECONDS.sleep(25);
        java.sql.PreparedStatement ps = conn.prepareStatement("SELECT id, tracking_no, promised_at FROM shipment "
                + "WHERE carrier = ? AND status = 'IN_TRANSIT' AND promised_at < ? "
                + "ORDER BY promised_at LIMIT 20");
        ps.setString(1, carrier);
        ps.setTimestamp(2, new java.sql.Timestamp(System.currentTimeMillis() - TimeUnit.HOURS.toMillis(48)));
        return ps.executeQuery();
    }
}
