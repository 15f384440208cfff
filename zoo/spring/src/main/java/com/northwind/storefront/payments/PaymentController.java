package com.northwind.storefront.payments;

import java.math.BigDecimal;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class PaymentController {
    private final PaymentAuthorizationService authorizations;

    public PaymentController(PaymentAuthorizationService authorizations) {
        this.authorizations = authorizations;
    }

    @GetMapping("/api/payments/authorize")
    public PaymentAuthorizationService.Decision authorize(@RequestParam(defaultValue = "tok_4111111111111111") String card,
            @RequestParam(defaultValue = "42.50") BigDecimal amount, @RequestParam(defaultValue = "m-1001") String merchant) {
        return authorizations.authorize(card, amount, merchant);
    }
}
