package dev.goodput.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.RunSummary;
import dev.goodput.definitions.CostFormulas;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;

/**
 * The time a scenario is charged, priced: its measured span (warm-up end to end, the union over its
 * generators' runs), cut at the window boundaries, each piece charged {@link CostFormulas#chargedSeconds}
 * at the hourly cost the sink priced its window with. A window of the span that holds no completion
 * (long requests still running) has no cost record of its own; it is charged at the price of the
 * scenario's nearest earlier priced window (else the nearest later one), so that no measured second
 * goes uncharged and no second outside the span is charged.
 */
final class ChargedTime {
    private ChargedTime() {
    }

    /** A measured span, microseconds. */
    record Interval(long startUs, long endUs) {
    }

    /** The scenario's measured spans, merged where they overlap (several generators), in time order. */
    static List<Interval> spans(List<RunSummary> runs) {
        final List<Interval> in = runs.stream()
                .map(r -> new Interval(Micros.of(r.getWarmupEndUs()), Micros.of(r.getEndedUs())))
                .filter(i -> i.endUs() > i.startUs()).sorted(Comparator.comparingLong(Interval::startUs)).toList();
        final List<Interval> merged = new ArrayList<>();
        for (Interval i : in) {
            final Interval last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last != null && i.startUs() <= last.endUs()) {
                merged.set(merged.size() - 1, new Interval(last.startUs(), Math.max(last.endUs(), i.endUs())));
            } else {
                merged.add(i);
            }
        }
        return merged;
    }

    /**
     * The priced segments of a scenario (or of a run's scenarios together): one per window piece of
     * its spans, carrying time and no tokens, then one per priced window carrying its tokens and no
     * time, so that tokens are counted once whatever the spans. Empty when no window was priced.
     */
    static List<CostFormulas.Segment> segments(List<Interval> spans, List<CostRecord> windowCosts) {
        final List<CostRecord> priced = windowCosts.stream().filter(c -> c.getPriced() && c.getHourlyCostUsd() != null)
                .sorted(Comparator.comparing(CostRecord::getWindowStartUs)).toList();
        if (priced.isEmpty()) {
            return List.of();
        }
        final long size = Micros.of(priced.get(0).getWindowEndUs()) - Micros.of(priced.get(0).getWindowStartUs());
        final List<CostFormulas.Segment> out = new ArrayList<>();
        for (Interval span : spans) {
            for (long w = Definitions.windowStart(span.startUs(), size); w < span.endUs(); w += size) {
                final CostRecord at = priceOf(priced, w);
                out.add(new CostFormulas.Segment(CostFormulas.chargedSeconds(w, w + size, span.startUs(), span.endUs()),
                        at.getHourlyCostUsd(), 0, at.getUsdPerGpuHour() == null ? 0 : at.getUsdPerGpuHour(), 0, 0));
            }
        }
        for (CostRecord c : priced) {
            out.add(new CostFormulas.Segment(0, c.getHourlyCostUsd(), 0, 0, c.getOutputTokensOk(), c.getOutputTokensGood()));
        }
        return out;
    }

    /** Seconds of a run's wall time (first measured start to last measured end) that no scenario was charged. */
    static double idleSeconds(List<Interval> spans) {
        if (spans.isEmpty()) {
            return 0;
        }
        double charged = 0;
        for (Interval i : spans) {
            charged += (i.endUs() - i.startUs()) / 1e6;
        }
        return (spans.get(spans.size() - 1).endUs() - spans.get(0).startUs()) / 1e6 - charged;
    }

    /** The window's own cost record, else the nearest earlier one, else the nearest later one. */
    private static CostRecord priceOf(List<CostRecord> ascending, long windowStartUs) {
        CostRecord best = null;
        for (CostRecord c : ascending) {
            if (Micros.of(c.getWindowStartUs()) <= windowStartUs) {
                best = c;
            }
        }
        return best != null ? best : ascending.get(0);
    }
}
