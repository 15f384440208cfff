package com.northwind.storefront.inventory;

import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ReservationController {
    private final WarehouseClient warehouse;

    public ReservationController(WarehouseClient warehouse) {
        this.warehouse = warehouse;
    }

    /** Called when a customer opens the checkout: hold the basket's items in the warehouse. */
    @GetMapping("/api/inventory/hold")
    public Map<String, Object> hold(@RequestParam(defaultValue = "b-77") String basket, @RequestParam(defaultValue = "SKU-1001") String sku,
            @RequestParam(defaultValue = "1") int qty) throws InterruptedException {
        WarehouseClient.Outcome outcome = warehouse.hold(basket, sku, qty);
        return Map.of("basket", basket, "sku", sku, "outcome", outcome.name());
    }
}
