package com.northwind.storefront.payments;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.stereotype.Service;

/**
 * Authorizes a card payment against simple risk rules. Compliance asked for a full audit trail of
 * every decision step, so each authorization writes its steps to the application log.
 */
@Service
public class PaymentAuthorizationService {
    private static final Logger log = LoggerFactory.getLogger(PaymentAuthorizationService.class);
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final String[] RULES = {"velocity", "amount-ceiling", "country-mismatch", "bin-blocklist",
            "night-time", "new-device", "merchant-category", "currency", "cvv-result", "avs-result",
            "3ds-status", "issuer-country", "chargeback-history", "loyalty-tier", "split-tender"};

    public record Decision(String paymentId, boolean approved, int score) {}

    public Decision authorize(String cardToken, BigDecimal amount, String merchant) {
        String paymentId = "pay-" + System.currentTimeMillis() + "-" + SEQUENCE.incrementAndGet();
        MDC.put("paymentId", paymentId);
        try {
            log.info("authorization requested: card={} amount={} merchant={}", mask(cardToken), amount, merchant);
            int score = 0;
            for (int round = 0; round < 2; round++) {
                for (String rule : RULES) {
                    int points = Math.floorMod((cardToken + rule + round).hashCode(), 7);
                    score += points;
                    log.info("rule {} round {} evaluated: points={} running score={} amount={} merchant={}",
                            rule, round, points, score, amount.setScale(2, RoundingMode.HALF_UP), merchant);
                }
            }
            boolean approved = score < 120 && amount.compareTo(BigDecimal.valueOf(5000)) <= 0;
            log.info("authorization {}: score={} card={} amount={}", approved ? "approved" : "declined", score, mask(cardToken), amount);
            return new Decision(paymentId, approved, score);
        } finally {
            MDC.remove("paymentId");
        }
    }

    private static String mask(String card) {
        return card.length() <= 4 ? "****" : "****" + card.substring(card.length() - 4);
    }
}
