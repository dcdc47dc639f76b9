package dev.goodput.generator.sweep;

import java.util.Locale;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Ends an open-loop point early when its queue grows without bound, as GuideLLM's over-saturation
 * detection does: sampled once a second from the end of the warm-up, requests in flight that have
 * risen at every one of the last {@value #RISING} samples and stand at more than twice (and at least
 * {@value #FLOOR} above) where they stood at the first sample mean the target serves fewer requests
 * a second than arrive, and more time would only lengthen the queue. Once it has said so it keeps
 * saying so. (A closed loop holds its requests in flight fixed, so this watch does not apply there;
 * its saturation shows as latency, which the attainment judges.)
 */
public final class SaturationWatch {
    static final int RISING = 5;
    static final int FLOOR = 8;

    private final IntSupplier inFlight;
    private final LongSupplier nowNanos;
    private final long measuredFromNanos;
    private long nextSampleNanos;
    private int first = -1;
    private int previous = -1;
    private int rises;
    private String verdict;

    public SaturationWatch(IntSupplier inFlight, LongSupplier nowNanos, long measuredFromNanos) {
        this.inFlight = inFlight;
        this.nowNanos = nowNanos;
        this.measuredFromNanos = measuredFromNanos;
        this.nextSampleNanos = measuredFromNanos;
    }

    /** Null while the point holds; once over-saturated, why (the same text from then on). */
    public synchronized String check() {
        final long now = nowNanos.getAsLong();
        if (verdict != null || now < nextSampleNanos) {
            return verdict;
        }
        nextSampleNanos = now + 1_000_000_000L;
        final int n = inFlight.getAsInt();
        if (first < 0) {
            first = n;
        }
        rises = previous >= 0 && n > previous ? rises + 1 : 0;
        previous = n;
        if (rises >= RISING && n > 2 * first && n >= first + FLOOR) {
            verdict = String.format(Locale.ROOT, "over-saturated: requests in flight rose from %d to %d in %d s without a pause",
                    first, n, Math.round((now - measuredFromNanos) / 1e9));
        }
        return verdict;
    }
}
