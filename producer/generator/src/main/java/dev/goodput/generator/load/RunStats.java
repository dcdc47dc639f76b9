package dev.goodput.generator.load;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import dev.goodput.records.Generation;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Live counters of a run, safe to update from HTTP threads: requests by status, tokens, and
 * HdrHistogram recorders (microseconds, 3 significant digits) of TTFT and dispatch lateness. Feeds
 * the progress line and the run summary; the authoritative numbers are computed downstream from the
 * topics. Warm-up requests are counted but kept out of the histograms, as they are kept out of
 * every result: the lateness p99 that marks a run generator-saturated is that of the measured part.
 */
public final class RunStats {
    /** Largest latency these live histograms hold: 1 hour. */
    public static final long MAX_US = 3_600_000_000L;
    public static final int DIGITS = 3;

    final LongAdder requests = new LongAdder();
    final LongAdder warmup = new LongAdder();
    final LongAdder ok = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    final LongAdder abandoned = new LongAdder();
    final LongAdder outputTokens = new LongAdder();
    final ErrorClasses errorClasses = new ErrorClasses();
    /** Measured (not warm-up) requests, for the summary block. */
    final LongAdder measuredOk = new LongAdder();
    final LongAdder measuredFailed = new LongAdder();
    final LongAdder measuredGood = new LongAdder();
    final LongAdder measuredSlo = new LongAdder();
    final LongAdder measuredInputTokens = new LongAdder();
    final LongAdder measuredOutputTokens = new LongAdder();
    private final Contract.Objectives objectives;
    private final Recorder tpot = new Recorder(MAX_US, DIGITS);
    private final Recorder e2e = new Recorder(MAX_US, DIGITS);
    private final Histogram tpotTotal = new Histogram(MAX_US, DIGITS);
    private final Histogram e2eTotal = new Histogram(MAX_US, DIGITS);

    RunStats() {
        this(new Contract.Objectives(Optional.empty(), Optional.empty(), Optional.empty()));
    }

    RunStats(Contract.Objectives objectives) {
        this.objectives = objectives;
    }
    private final Recorder ttft = new Recorder(MAX_US, DIGITS);
    private final Recorder lateness = new Recorder(MAX_US, DIGITS);
    private final Histogram ttftTotal = new Histogram(MAX_US, DIGITS);
    private final Histogram latenessTotal = new Histogram(MAX_US, DIGITS);

    void record(RequestEvent e) {
        requests.increment();
        if (e.getWarmup()) {
            warmup.increment();
        } else {
            final long late = Micros.of(e.getActualSendTimeUs()) - Micros.of(e.getIntendedSendTimeUs());
            lateness.recordValue(Math.min(MAX_US, Math.max(0, late)));
        }
        switch (e.getStatus()) {
            case OK -> {
                ok.increment();
                outputTokens.add(e.getOutputTokens());
                if (e.getFirstChunkTimeUs() != null && !e.getWarmup()) {
                    ttft.recordValue(Math.min(MAX_US, Math.max(0,
                            Micros.of(e.getFirstChunkTimeUs()) - Micros.of(e.getIntendedSendTimeUs()))));
                }
            }
            case TIMEOUT -> timeouts.increment();
            case ABANDONED -> abandoned.increment();
            default -> errors.increment();
        }
        if (e.getStatus() != RequestStatus.OK) {
            errorClasses.add(e.getErrorClass(), e.getErrorMessage());
        }
        if (!e.getWarmup()) {
            measured(e);
        }
    }

    /** A measured request's share of the summary block, by the same definitions the streams-app applies. */
    private void measured(RequestEvent e) {
        if (e.getStatus() != RequestStatus.OK || e.getFirstChunkTimeUs() == null || e.getLastChunkTimeUs() == null) {
            measuredFailed.increment();
            return;
        }
        final long intended = Micros.of(e.getIntendedSendTimeUs());
        final long ttftUs = Definitions.ttft(intended, Micros.of(e.getFirstChunkTimeUs()));
        final long e2eUs = Definitions.e2e(intended, Generation.endUs(e));
        final double tpotUs = Definitions.tpot(e2eUs, ttftUs, e.getOutputTokens());
        measuredOk.increment();
        measuredInputTokens.add(e.getPromptTokens());
        measuredOutputTokens.add(e.getOutputTokens());
        e2e.recordValue(Math.min(MAX_US, Math.max(0, e2eUs)));
        if (!Double.isNaN(tpotUs)) {
            tpot.recordValue(Math.min(MAX_US, Math.max(0, Math.round(tpotUs))));
        }
        final boolean slo = Definitions.sloPass(Definitions.failedObjectives(true, ttftUs, tpotUs, e2eUs, objectives));
        if (slo) {
            measuredSlo.increment();
        }
        if (Definitions.good(slo, Boolean.TRUE.equals(e.getQualityPass()))) {
            measuredGood.increment();
        }
    }


    /** Folds what was recorded since the last call into the run totals. */
    synchronized void sample() {
        ttftTotal.add(ttft.getIntervalHistogram());
        latenessTotal.add(lateness.getIntervalHistogram());
        tpotTotal.add(tpot.getIntervalHistogram());
        e2eTotal.add(e2e.getIntervalHistogram());
    }

    /** TTFT, TPOT and E2E of the measured OK requests, microseconds. */
    synchronized Map<String, Histogram> latency() {
        sample();
        return Map.of("ttft", ttftTotal.copy(), "tpot", tpotTotal.copy(), "e2e", e2eTotal.copy());
    }

    synchronized Histogram lateness() {
        sample();
        return latenessTotal.copy();
    }

    synchronized Histogram ttft() {
        sample();
        return ttftTotal.copy();
    }

    long requests() {
        return requests.sum();
    }

    /** One progress line, like Kafka's perf tools. */
    String progress(double elapsedS, long inFlight, long tokenEvents) {
        final Histogram t = ttft();
        final Histogram l = lateness();
        final String counts = String.format(Locale.ROOT,
                "%8.1f s: %d requests (ok %d, errors %d, timeouts %d), %d in flight, %.1f req/s, %.1f output tokens/s, "
                        + "%d chunks, ",
                elapsedS, requests.sum(), ok.sum(), errors.sum(), timeouts.sum(), inFlight,
                requests.sum() / Math.max(elapsedS, 1e-9), outputTokens.sum() / Math.max(elapsedS, 1e-9), tokenEvents);
        if (t.getTotalCount() == 0 && l.getTotalCount() == 0 && warmup.sum() > 0) {
            return counts + "warm-up (not in the percentiles)";
        }
        return counts + String.format(Locale.ROOT, "TTFT p50 %.1f ms p99 %.1f ms, dispatch lateness p99 %.3f ms",
                t.getValueAtPercentile(50) / 1000.0, t.getValueAtPercentile(99) / 1000.0,
                l.getValueAtPercentile(99) / 1000.0);
    }

    long count(RequestStatus s) {
        return switch (s) {
            case OK -> ok.sum();
            case ERROR -> errors.sum();
            case TIMEOUT -> timeouts.sum();
            case ABANDONED -> abandoned.sum();
        };
    }
}
