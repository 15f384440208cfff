package com.northwind.storefront.pricing;

import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

@Service
public class PremiumQuoteService {
    private final boolean perRequestModel;

    public PremiumQuoteService(@Value("${pricing.engine.per-request-model}") boolean perRequestModel) {
        this.perRequestModel = perRequestModel;
    }

    public record Quote(String plan, int age, double monthlyPremium) {}

    public Quote quote(String plan, int age) {
        double baseRate = switch (plan) {
            case "bronze" -> 0.18;
            case "gold" -> 0.32;
            default -> 0.25;
        };
        double expected = perRequestModel
                // A generator of its own: java.util.Random's nextGaussian is synchronized, so even the
                // shared ThreadLocalRandom instance would serialise callers on JDK 17.
                ? RiskModel.expectedClaimsIsolated(age, baseRate, new Random(ThreadLocalRandom.current().nextLong()))
                : RiskModel.expectedClaims(age, baseRate);
        return new Quote(plan, age, Math.round(expected * 1.35 / 12 * 100) / 100.0);
    }
}
