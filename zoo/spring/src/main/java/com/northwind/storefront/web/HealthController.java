package com.northwind.storefront.web;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Readiness for load balancers and for tuneloop's start-up poll. */
@RestController
public class HealthController {
    @GetMapping("/health")
    public String health() {
        return "ok\n";
    }
}
