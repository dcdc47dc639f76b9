package dev.goodput.report.peers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GuideLLM's {@code DistributionSummary} (guidellm/schemas/statistics.py), ported: a weighted
 * distribution of values, its percentiles read off the cumulative weights (the first value whose
 * cumulative probability reaches p), and the rate and concurrency distributions GuideLLM derives
 * from event times (each rate or level weighted by the time it held).
 */
final class GuidellmDistribution {

    static final String[] PERCENTILES = {"p001", "p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p999"};
    private static final double[] PROBS = {0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999};
    private static final double EPSILON = 1e-6;
    /** GuideLLM merges events closer than a tenth of a millisecond. */
    static final double THRESHOLD_S = 1e-4;

    private GuidellmDistribution() {
    }

    /** A value and its weight. */
    record Weighted(double value, double weight) {
    }

    static Weighted w(double value, double weight) {
        return new Weighted(value, weight);
    }

    /** {@code DistributionSummary.from_values}: count defaults to the rounded sum of the weights. */
    static Map<String, Object> fromValues(List<Weighted> values, Long count) {
        if (values.isEmpty()) {
            return summary(new double[0], new double[0], count == null ? 0 : count);
        }
        final long n = count != null ? count : Math.round(values.stream().mapToDouble(Weighted::weight).sum());
        final List<Weighted> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.comparingDouble(Weighted::value));
        final List<double[]> combined = new ArrayList<>();
        for (Weighted x : sorted) {
            if (!combined.isEmpty() && combined.get(combined.size() - 1)[0] == x.value()) {
                combined.get(combined.size() - 1)[1] += x.weight();
            } else {
                combined.add(new double[] {x.value(), x.weight()});
            }
        }
        combined.removeIf(c -> !(c[1] > 0));
        final double[] v = combined.stream().mapToDouble(c -> c[0]).toArray();
        double[] wts = combined.stream().mapToDouble(c -> c[1]).toArray();
        double total = Arrays.stream(wts).sum();
        if (total <= EPSILON) {
            wts = new double[v.length];
            Arrays.fill(wts, 1);
            total = v.length;
        }
        final double[] p = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            p[i] = wts[i] / total;
        }
        return summary(v, p, n);
    }

    /** {@code from_pdf}: values ascending, probabilities summing to 1. */
    private static Map<String, Object> summary(double[] v, double[] p, long count) {
        final Map<String, Object> m = new LinkedHashMap<>();
        final Map<String, Object> pct = new LinkedHashMap<>();
        if (v.length == 0) {
            for (String k : List.of("mean", "median", "mode", "variance", "std_dev", "min", "max")) {
                m.put(k, 0.0);
            }
            m.put("count", count);
            m.put("total_sum", 0.0);
            for (String k : PERCENTILES) {
                pct.put(k, 0.0);
            }
            m.put("percentiles", pct);
            m.put("pdf", null);
            return m;
        }
        final double[] cdf = new double[v.length];
        double c = 0;
        for (int i = 0; i < v.length; i++) {
            c += p[i];
            cdf[i] = c;
        }
        for (int k = 0; k < PERCENTILES.length; k++) {
            pct.put(PERCENTILES[k], v[searchLeft(cdf, PROBS[k])]);
        }
        double mean = 0;
        int mode = 0;
        for (int i = 0; i < v.length; i++) {
            mean += v[i] * p[i];
            if (p[i] > p[mode]) {
                mode = i;
            }
        }
        double variance = 0;
        for (int i = 0; i < v.length; i++) {
            variance += (v[i] - mean) * (v[i] - mean) * p[i];
        }
        m.put("mean", mean);
        m.put("median", pct.get("p50"));
        m.put("mode", v[mode]);
        m.put("variance", variance);
        m.put("std_dev", Math.sqrt(variance));
        m.put("min", v[0]);
        m.put("max", v[v.length - 1]);
        m.put("count", count);
        m.put("total_sum", mean * count);
        m.put("percentiles", pct);
        m.put("pdf", null);
        return m;
    }

    /** numpy's {@code searchsorted(side="left")}, clamped to the last index where rounding leaves the cdf short of p. */
    private static int searchLeft(double[] cdf, double p) {
        for (int i = 0; i < cdf.length; i++) {
            if (cdf[i] >= p) {
                return i;
            }
        }
        return cdf.length - 1;
    }

    /** {@code rate_distribution_from_timings}: each event's weight over the time around it, weighted by that time. */
    static Map<String, Object> rate(List<Weighted> eventTimes, Double start, Double end) {
        final List<Weighted> t = new ArrayList<>();
        if (start != null) {
            t.add(w(start, 0));
        }
        for (Weighted e : eventTimes) {
            if ((start == null || e.value() >= start) && (end == null || e.value() <= end)) {
                t.add(e);
            }
        }
        if (end != null) {
            t.add(w(end, 0));
        }
        t.sort(Comparator.comparingDouble(Weighted::value));
        final List<Weighted> merged = merge(t);
        if (merged.size() <= 1) {
            return fromValues(List.of(), (long) merged.size());
        }
        final int n = merged.size();
        final double[] durations = new double[n];
        final double[] mid = new double[n - 1];
        for (int i = 0; i < n - 1; i++) {
            mid[i] = (merged.get(i + 1).value() + merged.get(i).value()) / 2;
        }
        durations[0] = mid[0] - merged.get(0).value();
        for (int i = 1; i < n - 1; i++) {
            durations[i] = mid[i] - mid[i - 1];
        }
        durations[n - 1] = Math.max(EPSILON, merged.get(n - 1).value() - mid[n - 2]);
        final List<Weighted> rates = new ArrayList<>();
        double occurrences = 0;
        for (int i = 0; i < n; i++) {
            rates.add(w(merged.get(i).weight() / durations[i], durations[i]));
            occurrences += merged.get(i).weight();
        }
        return fromValues(rates, Math.round(occurrences));
    }

    /** {@code concurrency_distribution_from_timings}: the level between changes, weighted by how long it held. */
    static Map<String, Object> concurrency(List<double[]> intervals, Double start, Double end) {
        final List<double[]> kept = intervals.stream().filter(i -> (start == null || i[1] >= start) && (end == null || i[0] <= end))
                .toList();
        final long count = kept.size();
        final List<Weighted> changes = new ArrayList<>();
        for (double[] i : kept) {
            changes.add(w(i[0], 1));
            changes.add(w(i[1], -1));
        }
        changes.sort(Comparator.comparingDouble(Weighted::value));
        List<Weighted> times = merge(changes);
        if (start != null && !times.isEmpty()) {
            double prior = 0;
            final List<Weighted> after = new ArrayList<>();
            for (Weighted x : times) {
                if (x.value() < start) {
                    prior += x.weight();
                } else {
                    after.add(x);
                }
            }
            after.add(0, w(start, prior));
            times = after;
        }
        if (end != null && !times.isEmpty()) {
            final List<Weighted> before = new ArrayList<>(times.stream().filter(x -> x.value() <= end).toList());
            before.add(w(end, 0));
            times = before;
        }
        final double[] levels = new double[times.size()];
        double level = 0;
        for (int i = 0; i < times.size(); i++) {
            level += times.get(i).weight();
            levels[i] = Math.max(0, level);
        }
        if (levels.length <= 1) {
            return fromValues(count == 0 ? List.of() : List.of(w(levels[0], 1)), null);
        }
        final List<Weighted> values = new ArrayList<>();
        boolean any = false;
        for (int i = 0; i < levels.length - 1; i++) {
            final double d = Math.max(0, times.get(i + 1).value() - times.get(i).value());
            any |= d > 0;
            values.add(w(levels[i], d));
        }
        return fromValues(any ? values : List.of(), count);
    }

    /** Sums the weights of equal times, then of times within {@link #THRESHOLD_S} of a group's first. */
    static List<Weighted> merge(List<Weighted> sorted) {
        List<Weighted> out = new ArrayList<>();
        for (Weighted x : sorted) {
            if (!out.isEmpty() && out.get(out.size() - 1).value() == x.value()) {
                final Weighted last = out.remove(out.size() - 1);
                out.add(w(last.value(), last.weight() + x.weight()));
            } else {
                out.add(x);
            }
        }
        boolean merged = true;
        while (merged && out.size() > 1) {
            merged = false;
            final List<Weighted> next = new ArrayList<>();
            int i = 0;
            while (i < out.size()) {
                final double t0 = out.get(i).value();
                double weight = out.get(i).weight();
                int j = i + 1;
                while (j < out.size() && out.get(j).value() <= t0 + THRESHOLD_S) {
                    weight += out.get(j).weight();
                    j++;
                }
                merged |= j > i + 1;
                next.add(w(t0, weight));
                i = j;
            }
            out = next;
        }
        return out;
    }

    /** GuideLLM's {@code StatusDistributionSummary}: successful, incomplete, errored and all of them. */
    static Map<String, Object> byStatus(Map<String, Object> successful, Map<String, Object> incomplete, Map<String, Object> errored,
                                        Map<String, Object> total) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("successful", successful);
        m.put("incomplete", incomplete);
        m.put("errored", errored);
        m.put("total", total);
        return m;
    }
}
