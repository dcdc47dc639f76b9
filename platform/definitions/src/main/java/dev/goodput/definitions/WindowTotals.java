package dev.goodput.definitions;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.HdrHistogram.Histogram;

/**
 * What one window adds up over its finished requests: the counters and one HdrHistogram per latency
 * metric, and the window's figures computed from them by {@link Definitions}. Adding another
 * window's totals is exact: counters are summed and histograms added, never percentiles averaged.
 */
public final class WindowTotals {

    /** How a request ended, in the order of the contract's {@code RequestStatus}. */
    public enum Status { OK, ERROR, TIMEOUT, ABANDONED }

    /**
     * One finished request's measurements.
     *
     * @param errorClass null unless the request failed (then its status names it)
     * @param ttftUs     {@link Definitions#UNDEFINED} unless ok
     * @param ttfatUs    {@link Definitions#UNDEFINED} unless ok with an answer chunk
     * @param e2eUs      {@link Definitions#UNDEFINED} unless ok
     * @param tpotUs     NaN unless ok with 2 or more output tokens
     */
    public record Outcome(Status status, String errorClass, long ttftUs, long ttfatUs, long e2eUs, double tpotUs,
                          int outputTokens, long latenessUs, boolean sloPass, boolean qualityPass, boolean good) {
    }

    /** The counters, in the order {@link #counters()} and {@link #restore} use. */
    public static final int COUNTERS = 13;

    private long total;
    private long ok;
    private long error;
    private long timeout;
    private long abandoned;
    private long sloPass;
    private long qualityPass;
    private long good;
    private long outputTokensOk;
    private long outputTokensGood;
    private long sumDecodeUs;
    private long sumTokensMinusOne;
    private long lateEvents;
    /** The hull of the stretches in which requests were live in the window ({@link #live}); empty while from > to. */
    private long liveFromUs = Long.MAX_VALUE;
    private long liveToUs = Long.MIN_VALUE;
    /** Requests whose server said how many prompt tokens it served from its cache, their prompt tokens, and those cached. */
    private long cacheRequests;
    private long cachePromptTokens;
    private long cachedTokens;
    private final Map<String, Long> errorsByClass = new TreeMap<>();
    private final Map<String, Long> refused = new TreeMap<>();
    private final Histogram ttft;
    private final Histogram ttfat;
    private final Histogram itl;
    private final Histogram tpot;
    private final Histogram e2e;
    private final Histogram lateness;

    private WindowTotals(Histogram[] h) {
        this.ttft = h[0];
        this.ttfat = h[1];
        this.itl = h[2];
        this.tpot = h[3];
        this.e2e = h[4];
        this.lateness = h[5];
    }

    /**
     * Empty totals. Their histograms grow with the values recorded ({@link Histograms#partial}) rather
     * than holding each metric's whole range from the start (~180 KB each): a window lives through
     * many young collections, and copying six whole ranges per window was most of what they copied.
     * Every value is still clamped to its metric's range, and a record takes each histogram over that
     * range ({@link Histograms#overRange}), so what is carried is what a whole-range histogram gives.
     */
    public static WindowTotals empty() {
        return new WindowTotals(new Histogram[] {Histograms.partial(), Histograms.partial(), Histograms.partial(),
            Histograms.partial(), Histograms.partial(), Histograms.partial()});
    }

    /** Each histogram's whole range, in the order of {@link #histograms()}. */
    public static final long[] RANGES_US = {Histograms.MAX_REQUEST_LATENCY_US, Histograms.MAX_REQUEST_LATENCY_US,
        Histograms.MAX_TOKEN_LATENCY_US, Histograms.MAX_TOKEN_LATENCY_US, Histograms.MAX_REQUEST_LATENCY_US,
        Histograms.MAX_LATENESS_US};

    /** Totals as {@link #counters()}, {@link #errorsByClass()}, {@link #refused()} and {@link #histograms()} gave them. */
    public static WindowTotals restore(long[] counters, Map<String, Long> errorsByClass, Map<String, Long> refused,
                                       Histogram[] histograms) {
        if (counters.length != COUNTERS || histograms.length != 6) {
            throw new IllegalArgumentException("window totals have " + COUNTERS + " counters and 6 histograms, not "
                    + counters.length + " and " + histograms.length);
        }
        final WindowTotals t = new WindowTotals(histograms);
        t.total = counters[0];
        t.ok = counters[1];
        t.error = counters[2];
        t.timeout = counters[3];
        t.abandoned = counters[4];
        t.sloPass = counters[5];
        t.qualityPass = counters[6];
        t.good = counters[7];
        t.outputTokensOk = counters[8];
        t.outputTokensGood = counters[9];
        t.sumDecodeUs = counters[10];
        t.sumTokensMinusOne = counters[11];
        t.lateEvents = counters[12];
        t.errorsByClass.putAll(errorsByClass);
        t.refused.putAll(refused);
        return t;
    }

    /** Counts a finished request: every status in the counts, an ok one's latencies in the histograms. */
    public void add(Outcome r) {
        total++;
        Histograms.record(lateness, r.latenessUs(), Histograms.MAX_LATENESS_US);
        switch (r.status()) {
            case OK -> ok++;
            case ERROR -> error++;
            case TIMEOUT -> timeout++;
            case ABANDONED -> abandoned++;
        }
        if (r.status() != Status.OK) {
            errorsByClass.merge(r.errorClass() == null ? r.status().name().toLowerCase(Locale.ROOT) : r.errorClass(),
                    1L, Long::sum);
            return;
        }
        outputTokensOk += r.outputTokens();
        Histograms.record(ttft, r.ttftUs(), Histograms.MAX_REQUEST_LATENCY_US);
        Histograms.record(e2e, r.e2eUs(), Histograms.MAX_REQUEST_LATENCY_US);
        if (r.ttfatUs() != Definitions.UNDEFINED) {
            Histograms.record(ttfat, r.ttfatUs(), Histograms.MAX_REQUEST_LATENCY_US);
        }
        if (!Double.isNaN(r.tpotUs())) {
            Histograms.record(tpot, Math.round(r.tpotUs()), Histograms.MAX_TOKEN_LATENCY_US);
            sumDecodeUs += r.e2eUs() - r.ttftUs();
            sumTokensMinusOne += r.outputTokens() - 1;
        }
        if (r.sloPass()) {
            sloPass++;
        }
        if (r.qualityPass()) {
            qualityPass++;
        }
        if (r.good()) {
            good++;
            outputTokensGood += r.outputTokens();
        }
    }

    /** One inter-token gap of an ok request. */
    public void addGap(long gapUs) {
        Histograms.record(itl, gapUs, Histograms.MAX_TOKEN_LATENCY_US);
    }

    /** A record refused to the dead-letter topic while the window was open; a late one counts as late too. */
    public void refused(String reason, boolean late) {
        refused.merge(reason, 1L, Long::sum);
        if (late) {
            lateEvents++;
        }
    }

    /**
     * A stretch of the window in which a request was live (from its intended send, or the window's
     * start, to its completion, or the window's end): the window keeps their hull, the time its
     * scenario used it, which is what the window is charged ({@link CostFormulas#chargedSeconds}).
     */
    public void live(long fromUs, long toUs) {
        if (fromUs > toUs) {
            throw new IllegalArgumentException("a live stretch ends before it starts: " + fromUs + " > " + toUs);
        }
        liveFromUs = Math.min(liveFromUs, fromUs);
        liveToUs = Math.max(liveToUs, toUs);
    }

    /** A request whose server said it served {@code cached} of its {@code prompt} tokens from its prefix cache. */
    public void cache(int prompt, int cached) {
        cacheRequests++;
        cachePromptTokens += prompt;
        cachedTokens += cached;
    }

    /** {requests that said, their prompt tokens, their cached tokens}: what {@link Definitions#cacheHitRate} takes. */
    public long[] cacheCounts() {
        return new long[] {cacheRequests, cachePromptTokens, cachedTokens};
    }

    /** The counts {@link #cacheCounts} gave, added (a stored aggregate read back). */
    public void restoreCache(long requests, long prompt, long cached) {
        cacheRequests += requests;
        cachePromptTokens += prompt;
        cachedTokens += cached;
    }

    /** Whether any request was live in the window (a window of refusals only has none). */
    public boolean hasLive() {
        return liveFromUs <= liveToUs;
    }

    /** Start of the hull of the live stretches; meaningless unless {@link #hasLive}. */
    public long liveFromUs() {
        return liveFromUs;
    }

    /** End of the hull of the live stretches; meaningless unless {@link #hasLive}. */
    public long liveToUs() {
        return liveToUs;
    }

    /** Adds another window's totals: counters summed, histograms added, live stretches joined in one hull. */
    public void add(WindowTotals o) {
        if (o.hasLive()) {
            live(o.liveFromUs, o.liveToUs);
        }
        restoreCache(o.cacheRequests, o.cachePromptTokens, o.cachedTokens);
        total += o.total;
        ok += o.ok;
        error += o.error;
        timeout += o.timeout;
        abandoned += o.abandoned;
        o.errorsByClass.forEach((k, v) -> errorsByClass.merge(k, v, Long::sum));
        sloPass += o.sloPass;
        qualityPass += o.qualityPass;
        good += o.good;
        outputTokensOk += o.outputTokensOk;
        outputTokensGood += o.outputTokensGood;
        sumDecodeUs += o.sumDecodeUs;
        sumTokensMinusOne += o.sumTokensMinusOne;
        lateEvents += o.lateEvents;
        o.refused.forEach((k, v) -> refused.merge(k, v, Long::sum));
        ttft.add(o.ttft);
        ttfat.add(o.ttfat);
        itl.add(o.itl);
        tpot.add(o.tpot);
        e2e.add(o.e2e);
        lateness.add(o.lateness);
    }

    /** The counters in a fixed order, for a codec ({@link #restore} takes them back). */
    public long[] counters() {
        return new long[] {total, ok, error, timeout, abandoned, sloPass, qualityPass, good, outputTokensOk,
            outputTokensGood, sumDecodeUs, sumTokensMinusOne, lateEvents};
    }

    /** TTFT, time to first answer, ITL, TPOT, E2E, dispatch lateness (the live histograms). */
    public Histogram[] histograms() {
        return new Histogram[] {ttft, ttfat, itl, tpot, e2e, lateness};
    }

    public long total() {
        return total;
    }

    public long ok() {
        return ok;
    }

    public long error() {
        return error;
    }

    public long timeout() {
        return timeout;
    }

    public long abandoned() {
        return abandoned;
    }

    public long sloPass() {
        return sloPass;
    }

    public long qualityPass() {
        return qualityPass;
    }

    public long good() {
        return good;
    }

    public long outputTokensOk() {
        return outputTokensOk;
    }

    public long outputTokensGood() {
        return outputTokensGood;
    }

    public long lateEvents() {
        return lateEvents;
    }

    /** Failed requests by error class (a status's own name when it had none); live, sorted by class. */
    public Map<String, Long> errorsByClass() {
        return errorsByClass;
    }

    /** Records refused while the window was open, by reason; live, sorted by reason. */
    public Map<String, Long> refused() {
        return refused;
    }

    public Histogram ttft() {
        return ttft;
    }

    public Histogram ttfat() {
        return ttfat;
    }

    public Histogram itl() {
        return itl;
    }

    public Histogram tpot() {
        return tpot;
    }

    public Histogram e2e() {
        return e2e;
    }

    public Histogram lateness() {
        return lateness;
    }

    /** Good requests per second of the window. */
    public double goodputRps(double windowSeconds) {
        return Definitions.perSecond(good, windowSeconds);
    }

    /** Output tokens of good requests per second of the window. */
    public double goodputTokensPerS(double windowSeconds) {
        return Definitions.perSecond(outputTokensGood, windowSeconds);
    }

    public double goodFraction() {
        return Definitions.goodFraction(good, total);
    }

    /** Output tokens of ok requests per second of the window. */
    public double outputTokensPerS(double windowSeconds) {
        return Definitions.perSecond(outputTokensOk, windowSeconds);
    }

    public double tokensPerGpuSecond(double windowSeconds, int gpus) {
        return Definitions.tokensPerGpuSecond(outputTokensOk, windowSeconds, gpus);
    }

    /** The token-weighted mean TPOT; 0 while no ok request had 2 or more output tokens. */
    public double tpotTokenWeightedMeanUs() {
        return sumTokensMinusOne == 0 ? 0 : Definitions.tpotTokenWeighted(sumDecodeUs, sumTokensMinusOne);
    }
}
