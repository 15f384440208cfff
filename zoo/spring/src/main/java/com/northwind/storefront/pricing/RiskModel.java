package com.northwind.storefront.pricing;

import java.util.Random;

/**
 * Monte Carlo estimate of the expected yearly claims of a policy holder. The model keeps one seeded
 * generator and one scratch buffer for the whole application (a reproducible sequence and no
 * allocation per quote), so a simulation must not run twice at once.
 */
final class RiskModel {
    private static final int PATHS = 8_000;
    private static final Random RANDOM = new Random(20240601L);
    private static final double[] SCRATCH = new double[PATHS];

    private RiskModel() {}

    static synchronized double expectedClaims(int age, double baseRate) {
        return simulate(RANDOM, SCRATCH, age, baseRate);
    }

    /** The same model with its own generator and buffer: callers need no lock. */
    static double expectedClaimsIsolated(int age, double baseRate, Random random) {
        return simulate(random, new double[PATHS], age, baseRate);
    }

    private static double simulate(Random random, double[] paths, int age, double baseRate) {
        double ageFactor = 1.0 + Math.max(0, age - 30) * 0.015;
        double sum = 0;
        for (int i = 0; i < paths.length; i++) {
            double claims = 0;
            for (int month = 0; month < 12; month++) {
                if (random.nextDouble() < baseRate * ageFactor / 12) {
                    claims += Math.exp(7.5 + 0.9 * random.nextGaussian());
                }
            }
            paths[i] = claims;
            sum += claims;
        }
        return sum / paths.length;
    }
}
