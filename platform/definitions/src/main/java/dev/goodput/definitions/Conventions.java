package dev.goodput.definitions;

import java.util.Arrays;
import java.util.Optional;

import dev.goodput.contract.Contract;

/**
 * The per-request definitions of Goodput and of two tools users already trust, as pure functions,
 * so that a run can be recomputed the way each tool would have reported it.
 *
 * <ul>
 * <li><b>Goodput</b>: the clock starts at the intended send time (no coordinated omission); TTFT
 * ends at the first content chunk; E2E at the end of generation (the stream's finish, see
 * {@link Definitions#generationEnd}); TPOT = (E2E - TTFT) / (tokens -
 * 1), undefined below 2 tokens, where it cannot miss its objective; a good request also passes the
 * quality floor. Percentiles: HdrHistogram's {@code valueAtPercentile}.</li>
 * <li><b>vLLM {@code bench serve}</b>: the clock starts when the request is actually sent; TTFT
 * ends at the first stream event with a choice, even one with no text (a role-only delta); latency
 * ends at the last event with a choice; ITL is every gap between consecutive such events; TPOT as
 * above for requests with more than one output token; for goodput a one-token request's TPOT counts
 * as 0; a request is good when every given objective is met ({@code slo >= value}); quality plays
 * no part. Percentiles: numpy's default linear interpolation.</li>
 * <li><b>NVIDIA AIPerf</b>: the clock starts when the request is actually sent; TTFT ends at the
 * first response with content; request latency at the last response with content; ITL per request
 * = (latency - TTFT) / (output tokens - 1), with no value for a one-token request; inter-chunk
 * latency is every gap between content responses; a request is good when it has a value for every
 * objective and each is at or below it (so a one-token request fails an ITL objective); quality plays
 * no part. Percentiles: numpy's linear interpolation.</li>
 * </ul>
 */
public final class Conventions {

    /** Whose definitions. */
    public enum Tool {
        GOODPUT("Goodput"), VLLM("vLLM bench serve"), AIPERF("NVIDIA AIPerf");

        private final String label;

        Tool(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * One successful request under one convention. Times in microseconds; NaN where the convention
     * has no value.
     *
     * @param tpotUs      TPOT (AIPerf calls it ITL): per-request mean time per output token after the first
     * @param gapsUs      the per-chunk gaps the tool reports as ITL (vLLM) or inter-chunk latency (AIPerf, Goodput's ITL)
     */
    public record Measures(double ttftUs, double e2eUs, double tpotUs, long[] gapsUs, int outputTokens) {
    }

    /**
     * A successful request's times as its request event records them, in microseconds.
     *
     * @param firstChoiceUs the first stream event with a choice, even one without content, or -1 when not recorded
     * @param lastChoiceUs  the last such event, or -1
     */
    public record Times(long intendedUs, long actualUs, long firstChunkUs, long lastChunkUs, long firstChoiceUs, long lastChoiceUs,
                        int outputTokens) {
    }

    private Conventions() {
    }

    /** A request's figures under a convention, from its times and its content chunks' arrivals in chunk order. */
    public static Measures measure(Tool tool, Times r, long[] contentArrivalsUs) {
        return switch (tool) {
            case GOODPUT -> goodput(r, contentArrivalsUs);
            case VLLM -> vllm(r, contentArrivalsUs);
            case AIPERF -> aiperf(r, contentArrivalsUs);
        };
    }

    static Measures goodput(Times r, long[] arrivals) {
        final long ttft = Definitions.ttft(r.intendedUs(), r.firstChunkUs());
        final long e2e = Definitions.e2e(r.intendedUs(), Definitions.generationEnd(r.lastChunkUs(), r.lastChoiceUs()));
        return new Measures(ttft, e2e, Definitions.tpot(e2e, ttft, r.outputTokens()), Definitions.itlGaps(arrivals), r.outputTokens());
    }

    static Measures vllm(Times r, long[] arrivals) {
        final long start = r.actualUs();
        final long first = r.firstChoiceUs() >= 0 ? r.firstChoiceUs() : r.firstChunkUs();
        final long last = r.lastChoiceUs() >= 0 ? r.lastChoiceUs() : r.lastChunkUs();
        // every event with a choice that we know of: a leading text-less one, the content chunks, a closing text-less one
        long[] events = arrivals;
        if (arrivals.length == 0 || first < arrivals[0]) {
            events = prepend(first, events);
        }
        if (last > events[events.length - 1]) {
            events = Arrays.copyOf(events, events.length + 1);
            events[events.length - 1] = last;
        }
        final double ttft = first - start;
        final double e2e = last - start;
        final int tokens = r.outputTokens();
        // no chunk known (a span: its first and last are derived, not received): no gap was measured, and none is made up
        final long[] gaps = arrivals.length == 0 ? new long[0] : Definitions.itlGaps(events);
        return new Measures(ttft, e2e, tokens > 1 ? (e2e - ttft) / (tokens - 1) : Double.NaN, gaps, tokens);
    }

    static Measures aiperf(Times r, long[] arrivals) {
        final long start = r.actualUs();
        final double ttft = r.firstChunkUs() - start;
        final double latency = r.lastChunkUs() - start;
        final int tokens = r.outputTokens();
        return new Measures(ttft, latency, tokens >= 2 ? (latency - ttft) / (tokens - 1) : Double.NaN,
                Definitions.itlGaps(arrivals), tokens);
    }

    /** Whether a successful request is good under a convention ({@code qualityPass} only counts for Goodput). */
    public static boolean good(Tool tool, Measures m, Contract.Objectives o, boolean qualityPass) {
        return switch (tool) {
            case GOODPUT -> Definitions.good(Definitions.sloPass(Definitions.failedObjectives(true, (long) m.ttftUs(), m.tpotUs(),
                    (long) m.e2eUs(), o)), qualityPass);
            // vLLM: "if output_len <= 1, we regard tpot as 0 for goodput"
            case VLLM -> within(m.ttftUs(), o.ttftUs()) && within(Double.isNaN(m.tpotUs()) ? 0 : m.tpotUs(), o.tpotUs())
                    && within(m.e2eUs(), o.e2eUs());
            // AIPerf: a request with no value for an objective's metric is not good
            case AIPERF -> within(m.ttftUs(), o.ttftUs()) && (o.tpotUs().isEmpty() || !Double.isNaN(m.tpotUs()))
                    && within(m.tpotUs(), o.tpotUs()) && within(m.e2eUs(), o.e2eUs());
        };
    }

    private static boolean within(double value, Optional<Long> bound) {
        return bound.isEmpty() || Double.isNaN(value) || value <= bound.get();
    }

    /**
     * numpy's default percentile ({@code method="linear"}): the value at rank p/100 x (n - 1) of the
     * ascending samples, interpolated linearly between the two nearest ranks. NaN for no samples.
     */
    public static double linearPercentile(double[] ascending, double p) {
        if (ascending.length == 0) {
            return Double.NaN;
        }
        final double rank = p / 100 * (ascending.length - 1);
        final int lo = (int) Math.floor(rank);
        final int hi = Math.min(lo + 1, ascending.length - 1);
        return ascending[lo] + (rank - lo) * (ascending[hi] - ascending[lo]);
    }

    private static long[] prepend(long v, long[] a) {
        final long[] out = new long[a.length + 1];
        out[0] = v;
        System.arraycopy(a, 0, out, 1, a.length);
        return out;
    }
}
