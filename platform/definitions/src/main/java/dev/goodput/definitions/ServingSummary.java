package dev.goodput.definitions;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.HdrHistogram.Histogram;

/**
 * The console block at the end of a run or scenario, laid out line for line like vLLM's
 * {@code bench serve} "Serving Benchmark Result" (so it reads at a glance), with Goodput's additions
 * below it (vLLM's request goodput in vLLM's place). Every figure is computed by {@link Definitions} and {@link Histograms}; medians and
 * percentiles are HdrHistogram's (3 significant digits), where vLLM's are numpy's over the samples.
 *
 * @param good      good requests (SLO and quality verdicts passed): vLLM's request goodput, and the good %
 * @param latency   histograms in microseconds by metric: any of ttft, tpot, itl, e2e (a missing one is left out)
 * @param additions Goodput's other lines (label, value), in order, after the good %
 */
public record ServingSummary(String title, long successful, long failed, long good, double durationS, long inputTokens,
                             long outputTokens, Map<String, Histogram> latency, Map<String, String> additions) {

    private static final int WIDTH = 50;
    private static final Map<String, String[]> SECTIONS = new LinkedHashMap<>();

    static {
        SECTIONS.put("ttft", new String[] {"Time to First Token", "TTFT"});
        SECTIONS.put("tpot", new String[] {"Time per Output Token (excl. 1st token)", "TPOT"});
        SECTIONS.put("itl", new String[] {"Inter-token Latency", "ITL"});
        SECTIONS.put("e2e", new String[] {"End-to-end Latency", "E2EL"});
    }

    /** The block's lines. */
    public List<String> lines() {
        final List<String> out = new ArrayList<>();
        out.add(rule(" " + title + " ", '='));
        out.add(row("Successful requests:", Long.toString(successful)));
        out.add(row("Failed requests:", Long.toString(failed)));
        out.add(row("Benchmark duration (s):", fixed(durationS)));
        out.add(row("Total input tokens:", Long.toString(inputTokens)));
        out.add(row("Total generated tokens:", Long.toString(outputTokens)));
        out.add(row("Request throughput (req/s):", fixed(Definitions.perSecond(successful, durationS))));
        out.add(row("Request goodput (req/s):", fixed(Definitions.perSecond(good, durationS))));
        out.add(row("Output token throughput (tok/s):", fixed(Definitions.perSecond(outputTokens, durationS))));
        out.add(row("Total token throughput (tok/s):", fixed(Definitions.perSecond(inputTokens + outputTokens, durationS))));
        SECTIONS.forEach((metric, names) -> {
            final Histogram h = latency.get(metric);
            if (h == null) {
                return;
            }
            final Histograms.Percentiles p = Histograms.percentiles(h);
            out.add(rule(names[0], '-'));
            out.add(row("Mean " + names[1] + " (ms):", ms(p.count(), p.mean())));
            out.add(row("Median " + names[1] + " (ms):", ms(p.count(), p.p50())));
            out.add(row("P99 " + names[1] + " (ms):", ms(p.count(), p.p99())));
        });
        out.add(rule("Goodput", '-'));
        // no measured request has no good share (the latencies above say n/a alike), where 0.00 would read as none good
        out.add(row("Good requests (%):", successful + failed == 0 ? "n/a"
                : fixed(100 * Definitions.goodFraction(good, successful + failed))));
        additions.forEach((label, value) -> out.add(row(label + ":", value)));
        out.add(String.valueOf('=').repeat(WIDTH));
        return out;
    }

    /** vLLM's {@code "{s:{c}^{n}}"}: the text centred in a rule of {@value #WIDTH} characters. */
    static String rule(String text, char c) {
        final int pad = Math.max(0, WIDTH - text.length());
        final int left = pad / 2;
        return String.valueOf(c).repeat(left) + text + String.valueOf(c).repeat(pad - left);
    }

    /** vLLM's {@code "{:<40} {:<10}"}, padding included, so a line reads as vLLM's byte for byte. */
    static String row(String label, String value) {
        return String.format(Locale.ROOT, "%-40s %-10s", label, value);
    }

    private static String fixed(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2f", v) : "n/a";
    }

    private static String ms(long count, double us) {
        return count == 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", us / 1000.0);
    }
}
