package dev.goodput.report.peers;

import java.util.Arrays;
import java.util.List;

import dev.goodput.definitions.Conventions;

/** numpy's statistics as vLLM and AIPerf use them: mean, population standard deviation, linear percentiles. */
final class Numpy {

    private Numpy() {
    }

    static double[] sorted(List<Double> values) {
        final double[] a = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a;
    }

    /** {@code np.mean}; NaN for no values. */
    static double mean(double[] a) {
        return a.length == 0 ? Double.NaN : Arrays.stream(a).sum() / a.length;
    }

    /** {@code np.std} (ddof = 0, the population deviation); NaN for no values. */
    static double std(double[] a) {
        if (a.length == 0) {
            return Double.NaN;
        }
        final double m = mean(a);
        double s = 0;
        for (double v : a) {
            s += (v - m) * (v - m);
        }
        return Math.sqrt(s / a.length);
    }

    /** {@code np.percentile(a, p)} with the default linear method, of ascending values. */
    static double percentile(double[] ascending, double p) {
        return Conventions.linearPercentile(ascending, p);
    }
}
