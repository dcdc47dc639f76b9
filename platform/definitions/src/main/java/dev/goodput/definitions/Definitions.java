package dev.goodput.definitions;

import java.util.ArrayList;
import java.util.List;

import dev.goodput.contract.Contract;

/**
 * The metric definitions of the README's definitions table, one small pure function each (all times in microseconds).
 * The README's definitions table names these functions.
 */
public final class Definitions {

    /** A value that is not defined for a request (for example TPOT with one output token). */
    public static final long UNDEFINED = Long.MIN_VALUE;

    private Definitions() {
    }

    /** TTFT: first content chunk (of any kind) minus the intended send time. */
    public static long ttft(long intendedUs, long firstChunkUs) {
        return firstChunkUs - intendedUs;
    }

    /** Time to first answer token: first answer chunk minus the intended send time. */
    public static long timeToFirstAnswer(long intendedUs, long firstAnswerUs) {
        return firstAnswerUs - intendedUs;
    }

    /** E2E: the end of generation ({@link #generationEnd}) minus the intended send time. */
    public static long e2e(long intendedUs, long generationEndUs) {
        return generationEndUs - intendedUs;
    }

    /**
     * Where a request's generation ends: at the stream's finish, the last stream event that carries a
     * choice ({@code lastChoiceUs}: the chunk with {@code finish_reason}, with or without text), when
     * it was recorded, else at the last content chunk. An engine counts its end-of-sequence token
     * among the output tokens and sends no text for it; the finish chunk comes after that decode
     * step, so (E2E - TTFT) spans every one of the (output tokens - 1) gaps TPOT divides by. A
     * usage-only event ({@code choices: []}) and {@code [DONE]} are transport, not generation, and
     * are never a choice. vLLM's {@code bench serve} ends its latency at the same event. -1 when not
     * recorded (spans, events of builds before the field).
     */
    public static long generationEnd(long lastChunkUs, long lastChoiceUs) {
        return Math.max(lastChunkUs, lastChoiceUs);
    }

    /** Dispatch lateness: actual minus intended send time (the generator's own delay). */
    public static long dispatchLateness(long intendedUs, long actualUs) {
        return actualUs - intendedUs;
    }

    /** The share of the measured TTFT that the generator's own lateness may take before it is called saturated. */
    public static final double SATURATION_SHARE = 0.05;

    /**
     * Whether the generator, not the target, may have limited the load: its dispatch lateness p99 is
     * above the bound AND above {@link #SATURATION_SHARE} of the TTFT median it measured (latencies run
     * from the intended send, so lateness is inside them; 2 ms of lateness does not bend a 500 ms TTFT,
     * but bends a 10 ms one). With no TTFT measured, the bound alone decides.
     */
    public static boolean generatorSaturated(long latenessP99Us, long boundUs, long ttftP50Us) {
        if (latenessP99Us <= boundUs) {
            return false;
        }
        return ttftP50Us <= 0 || latenessP99Us > SATURATION_SHARE * ttftP50Us;
    }

    /**
     * TPOT (vLLM): (E2E - TTFT) / (output tokens - 1), E2E ending at the end of generation, so a
     * model that stops on its end-of-sequence token (counted in output tokens, sent without text)
     * has its last decode step inside the span; NaN for fewer than 2 output tokens, where it
     * is undefined (such requests are judged on TTFT and E2E only, see {@link #failedObjectives}).
     */
    public static double tpot(long e2eUs, long ttftUs, int outputTokens) {
        return outputTokens < 2 ? Double.NaN : (double) (e2eUs - ttftUs) / (outputTokens - 1);
    }

    /**
     * ITL: the gaps between consecutive content chunks, given their arrival times in chunk order.
     * A chunk carrying several tokens is one gap (ITL is per chunk; TPOT divides by tokens).
     */
    public static long[] itlGaps(long[] arrivalsInChunkOrder) {
        final boolean[] all = new boolean[arrivalsInChunkOrder.length];
        java.util.Arrays.fill(all, true);
        return itlGaps(arrivalsInChunkOrder, all, arrivalsInChunkOrder.length)[0];
    }

    /**
     * ITL where chunks may be missing (refused, or never come): chunk {@code i} arrived at
     * {@code arrivals[i]} when {@code arrived[i]}; a gap only between two consecutive chunk indices
     * that both arrived (a missing chunk makes no gap across it, never one that spans it), each
     * with the later chunk's arrival, which dates it (the window a gap belongs to). Only the first
     * {@code chunks} indices count. Returns {gaps, their times}.
     */
    public static long[][] itlGaps(long[] arrivals, boolean[] arrived, int chunks) {
        final int limit = Math.min(chunks, Math.min(arrivals.length, arrived.length));
        int n = 0;
        for (int i = 1; i < limit; i++) {
            if (arrived[i] && arrived[i - 1]) {
                n++;
            }
        }
        final long[] gaps = new long[n];
        final long[] times = new long[n];
        int j = 0;
        for (int i = 1; i < limit; i++) {
            if (arrived[i] && arrived[i - 1]) {
                gaps[j] = arrivals[i] - arrivals[i - 1];
                times[j++] = arrivals[i];
            }
        }
        return new long[][] {gaps, times};
    }

    /**
     * The objectives a request missed: "status" when it did not succeed, then each of ttft, tpot,
     * e2el whose value exceeds its objective. Bounds are inclusive (value == objective passes). An
     * undefined TPOT (fewer than 2 output tokens) cannot miss the TPOT objective.
     */
    public static List<String> failedObjectives(boolean ok, long ttftUs, double tpotUs, long e2eUs,
                                                Contract.Objectives o) {
        final List<String> failed = new ArrayList<>(2);
        if (!ok) {
            failed.add("status");
            return failed;
        }
        if (o.ttftUs().isPresent() && ttftUs > o.ttftUs().get()) {
            failed.add("ttft");
        }
        if (o.tpotUs().isPresent() && !Double.isNaN(tpotUs) && tpotUs > o.tpotUs().get()) {
            failed.add("tpot");
        }
        if (o.e2eUs().isPresent() && e2eUs > o.e2eUs().get()) {
            failed.add("e2el");
        }
        return failed;
    }

    /**
     * The content chunks of a request that were never taken: its request event counts
     * {@code contentChunks}, {@code accepted} of its token events passed every check (one refused as
     * out of order, late or out of range, or one that never came, is missing). Never negative.
     */
    public static int missingChunks(int contentChunks, int accepted) {
        return Math.max(0, contentChunks - accepted);
    }

    /**
     * The objectives a request missed, as {@link #failedObjectives(boolean, long, double, long,
     * Contract.Objectives)} gives them, with "incomplete" first when an OK request has missing
     * chunks: its TTFT, TPOT and ITL would be judged on the chunks that remain as if nothing had
     * happened, so it is not good, and its verdict says why.
     */
    public static List<String> failedObjectives(boolean ok, int missingChunks, long ttftUs, double tpotUs, long e2eUs,
                                                Contract.Objectives o) {
        final List<String> failed = failedObjectives(ok, ttftUs, tpotUs, e2eUs, o);
        if (ok && missingChunks > 0) {
            failed.add(0, INCOMPLETE);
        }
        return failed;
    }

    /** The failed objective of an OK request judged without some of its chunks. */
    public static final String INCOMPLETE = "incomplete";

    /** SLO verdict: ok and every configured objective met. */
    public static boolean sloPass(List<String> failedObjectives) {
        return failedObjectives.isEmpty();
    }

    /** Good request: SLO verdict and quality verdict. */
    public static boolean good(boolean sloPass, boolean qualityPass) {
        return sloPass && qualityPass;
    }

    /**
     * The cache hit rate, token-weighted: prompt tokens the server served from its cache over the
     * prompt tokens of the same requests (those whose usage report said how many were cached). NaN
     * when none said. A request of 1,000 prompt tokens and one of 10 weigh 100 to 1, as their
     * prefill did.
     */
    public static double cacheHitRate(long cachedTokens, long promptTokens) {
        return promptTokens <= 0 ? Double.NaN : (double) cachedTokens / promptTokens;
    }

    /**
     * A request hit the cache when the server served at least half its prompt from it: an engine
     * that matches a prompt's first token (a BOS) or a short shared template on every request has
     * not made that request cheap. Requests whose server said nothing are neither.
     */
    public static boolean cacheHit(int cachedTokens, int promptTokens) {
        return promptTokens > 0 && 2L * cachedTokens >= promptTokens;
    }

    /** Requests below which a window is thin: too few for its own cost figure or tail percentile to be shown as one. */
    public static final long THIN_WINDOW_REQUESTS = 10;

    /**
     * A thin window: fewer than {@link #THIN_WINDOW_REQUESTS} requests completed in it (a scenario's
     * first or last seconds, a trickle). Its requests count in every total; its own cost per good 1M
     * and its p99 are not shown as figures, since a handful of requests makes them noise.
     */
    public static boolean thinWindow(long requests) {
        return requests < THIN_WINDOW_REQUESTS;
    }

    /** Goodput: good requests (or good output tokens) per second of the window. */
    public static double perSecond(long count, double windowSeconds) {
        return windowSeconds <= 0 ? 0 : count / windowSeconds;
    }

    /**
     * Measured seconds of a run: from the end of its warm-up to its end; none when it ended within
     * its warm-up (a run cut short), never negative.
     */
    public static double measuredSeconds(long warmupEndUs, long endedUs) {
        return Math.max(0, endedUs - warmupEndUs) / 1e6;
    }

    /** Good fraction: good requests over all requests (0 when there were none). */
    public static double goodFraction(long good, long total) {
        return total == 0 ? 0 : (double) good / total;
    }

    /** Tokens per GPU-second: output tokens of ok requests / (window seconds x GPUs). */
    public static double tokensPerGpuSecond(long outputTokensOk, double windowSeconds, int gpus) {
        return windowSeconds <= 0 || gpus <= 0 ? 0 : outputTokensOk / (windowSeconds * gpus);
    }

    /** Token-weighted mean TPOT (GuideLLM): sum(E2E - TTFT) / sum(output tokens - 1) over requests with >= 2 tokens. */
    public static double tpotTokenWeighted(long sumDecodeUs, long sumTokensMinusOne) {
        return sumTokensMinusOne == 0 ? Double.NaN : (double) sumDecodeUs / sumTokensMinusOne;
    }

    /** The start of the tumbling window holding event time t. */
    public static long windowStart(long tUs, long sizeUs) {
        return Math.floorDiv(tUs, sizeUs) * sizeUs;
    }
}
