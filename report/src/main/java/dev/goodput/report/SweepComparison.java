package dev.goodput.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Two sweeps compared at their operating points: which configuration is cheaper per successful 1M
 * output tokens at the same objectives and target, by how much, what load each serves within the
 * target, and the loads both swept side by side. It names no winner when the two were judged
 * differently (their contracts' unfair differences, a different target, or one swept rate and the
 * other concurrency) unless asked to.
 */
public record SweepComparison(SweepResult a, SweepResult b, List<String> unfair, boolean allowUnfair) {

    /**
     * The two sweeps and why they are not comparable: the contract differences the caller found
     * unfair, plus a different target or load unit.
     */
    public static SweepComparison of(SweepResult a, SweepResult b, List<String> contractUnfair, boolean allowUnfair) {
        final List<String> why = new ArrayList<>(contractUnfair);
        if (!a.target().equals(b.target())) {
            why.add("the targets differ (A: " + a.target() + "; B: " + b.target() + ")");
        }
        if (!a.loadUnit().equals(b.loadUnit())) {
            why.add("A swept " + a.loadUnit() + ", B " + b.loadUnit());
        }
        return new SweepComparison(a, b, List.copyOf(why), allowUnfair);
    }

    /**
     * The verdict in a sentence: which side costs less per successful 1M at its operating point and
     * by how much, or why none is named.
     */
    public String verdict() {
        if (!unfair.isEmpty() && !allowUnfair) {
            return "No verdict: " + String.join("; ", unfair) + " (--allow-unfair names one anyway).";
        }
        final SweepResult.Answer x = a.answer();
        final SweepResult.Answer y = b.answer();
        if (x == null && y == null) {
            return "Neither configuration met the target at any load tried.";
        }
        if (x == null || y == null) {
            final String only = x == null ? "B" : "A";
            final SweepResult.Answer at = x == null ? y : x;
            return only + " is the only configuration meeting the target: up to " + load(at.highestMeeting(), unitOf(only))
                    + (at.costPerSuccessfulMUsd() == null ? "" : String.format(Locale.ROOT, ", at $%.4f per successful 1M",
                    at.costPerSuccessfulMUsd())) + ".";
        }
        final String serves = String.format(Locale.ROOT, "A serves %s within the target, B %s.", load(x.highestMeeting(), a.loadUnit()),
                load(y.highestMeeting(), b.loadUnit()));
        if (x.costPerSuccessfulMUsd() == null || y.costPerSuccessfulMUsd() == null) {
            return "No cost verdict: " + (x.costPerSuccessfulMUsd() == null ? "A" : "B")
                    + " has no cost per successful 1M at its operating point (unpriced, or no good token). " + serves;
        }
        final double ca = x.costPerSuccessfulMUsd();
        final double cb = y.costPerSuccessfulMUsd();
        if (ca == cb) {
            return String.format(Locale.ROOT, "A and B cost the same per successful 1M output tokens at their operating points: $%.4f. %s",
                    ca, serves);
        }
        final boolean aCheaper = ca < cb;
        final double cheap = Math.min(ca, cb);
        final double dear = Math.max(ca, cb);
        return String.format(Locale.ROOT, "%s is cheaper per successful 1M output tokens at its operating point: $%.4f against $%.4f"
                + " (%s costs %.1f %% more). %s%s", aCheaper ? "A" : "B", cheap, dear, aCheaper ? "B" : "A", (dear / cheap - 1) * 100,
                serves, unfair.isEmpty() ? "" : " (named although " + String.join("; ", unfair) + ")");
    }

    /** The comparison as text: each side's operating point, the verdict, then the loads both swept. */
    public String text() {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%nOperating points (target: %s):%n", a.target().equals(b.target()) ? a.target()
                : "A " + a.target() + ", B " + b.target()));
        sb.append(String.format(Locale.ROOT, "  %-4s %-18s %-26s %11s %14s %12s  %s%n", "side", "operating point", "scenario",
                "attainment", "goodput req/s", "$/good 1M", "next load up"));
        side(sb, "A", a);
        side(sb, "B", b);
        sb.append(verdict()).append('\n');
        final Map<Double, SweepResult.Point[]> both = new TreeMap<>();
        a.points().forEach(p -> both.computeIfAbsent(p.load(), k -> new SweepResult.Point[2])[0] = p);
        b.points().forEach(p -> both.computeIfAbsent(p.load(), k -> new SweepResult.Point[2])[1] = p);
        both.values().removeIf(pair -> pair[0] == null || pair[1] == null);
        if (!both.isEmpty() && a.loadUnit().equals(b.loadUnit())) {
            sb.append(String.format(Locale.ROOT, "Loads both swept (%s; ! marks a point failing the target):%n  %10s %12s %12s %12s %12s%n", a.loadUnit(), "load",
                    "A attained", "A $/good 1M", "B attained", "B $/good 1M"));
            both.forEach((l, pair) -> sb.append(String.format(Locale.ROOT, "  %10s %12s %12s %12s %12s%n", load(l, ""),
                    pct(pair[0]), cost(pair[0].costPerSuccessfulMUsd()), pct(pair[1]), cost(pair[1].costPerSuccessfulMUsd()))));
        }
        return sb.toString();
    }

    private static void side(StringBuilder sb, String name, SweepResult s) {
        final SweepResult.Answer at = s.answer();
        if (at == null) {
            final double lowest = s.points().stream().mapToDouble(SweepResult.Point::load).min().orElse(Double.NaN);
            sb.append(String.format(Locale.ROOT, "  %-4s none: the lowest load tried, %s, failed the target%n", name,
                    load(lowest, s.loadUnit())));
            return;
        }
        sb.append(String.format(Locale.ROOT, "  %-4s %-18s %-26s %10.1f%% %14s %12s  %s%n", name, load(at.highestMeeting(), s.loadUnit()),
                at.scenarioId(), at.attainment() * 100, at.goodputRps() == null ? "-" : String.format(Locale.ROOT, "%.2f", at.goodputRps()),
                cost(at.costPerSuccessfulMUsd()), at.lowestFailing() == null ? "none failed up to the cap"
                        : load(at.lowestFailing(), s.loadUnit()) + " fails"));
    }

    private String unitOf(String side) {
        return side.equals("A") ? a.loadUnit() : b.loadUnit();
    }

    private static String pct(SweepResult.Point p) {
        return String.format(Locale.ROOT, "%.1f%%%s", p.attainment() * 100, p.meets() ? "" : "!");
    }

    private static String cost(Double c) {
        return c == null ? "-" : String.format(Locale.ROOT, "$%.4f", c);
    }

    /** A load as the sweep's lines print it: whole numbers without decimals, then its unit when given. */
    public static String load(double l, String unit) {
        final String n = l == Math.rint(l) ? String.format(Locale.ROOT, "%.0f", l) : String.format(Locale.ROOT, "%.2f", l);
        return unit.isEmpty() ? n : n + " " + unit;
    }
}
