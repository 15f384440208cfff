package com.northwind.storefront.shipping;

import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

@Repository
public class ShipmentRepository {
    private final JdbcTemplate jdbc;

    public ShipmentRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Shipments of a carrier still in transit past the carrier's cut-off. */
    public List<Map<String, Object>> findOverdue(String carrier) {
        return jdbc.queryForList("CALL OVERDUE_SHIPMENTS(?)", carrier);
    }
}
