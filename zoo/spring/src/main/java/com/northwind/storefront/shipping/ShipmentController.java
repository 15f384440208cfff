package com.northwind.storefront.shipping;

import java.util.List;
import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ShipmentController {
    private final ShipmentRepository shipments;

    public ShipmentController(ShipmentRepository shipments) {
        this.shipments = shipments;
    }

    @GetMapping("/api/shipments/overdue")
    public Map<String, Object> overdue(@RequestParam(defaultValue = "ACME") String carrier) {
        List<Map<String, Object>> rows = shipments.findOverdue(carrier);
        return Map.of("carrier", carrier, "overdue", rows.size(), "first", rows.isEmpty() ? "" : rows.get(0).get("TRACKING_NO"));
    }
}
