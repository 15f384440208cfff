package com.northwind.storefront.pricing;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class QuoteController {
    private final PremiumQuoteService quotes;

    public QuoteController(PremiumQuoteService quotes) {
        this.quotes = quotes;
    }

    @GetMapping("/api/quotes/premium")
    public PremiumQuoteService.Quote premium(@RequestParam(defaultValue = "silver") String plan, @RequestParam(defaultValue = "45") int age) {
        return quotes.quote(plan, age);
    }
}
