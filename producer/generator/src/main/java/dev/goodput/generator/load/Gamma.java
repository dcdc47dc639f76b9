package dev.goodput.generator.load;

import java.util.SplittableRandom;

/** Gamma(shape, 1) samples by Marsaglia and Tsang's method (with the boost for shape < 1). */
final class Gamma {
    private Gamma() {
    }

    static double sample(SplittableRandom r, double shape) {
        if (shape < 1) {
            return sample(r, shape + 1) * Math.pow(r.nextDouble(), 1.0 / shape);
        }
        final double d = shape - 1.0 / 3;
        final double c = 1 / Math.sqrt(9 * d);
        while (true) {
            double x;
            double v;
            do {
                x = gaussian(r);
                v = 1 + c * x;
            } while (v <= 0);
            v = v * v * v;
            final double u = r.nextDouble();
            if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
                return d * v;
            }
        }
    }

    private static double gaussian(SplittableRandom r) {
        // Box-Muller; SplittableRandom has no nextGaussian on Java 17
        final double u1 = 1.0 - r.nextDouble();
        final double u2 = r.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
}
