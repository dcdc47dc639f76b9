package dev.goodput.loop;

import java.time.Instant;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Microseconds since the epoch from the monotonic clock, anchored once to wall time. Wall time can
 * step (NTP) in the middle of a run; intervals between two readings of this clock cannot.
 */
public final class MicroClock {
    private static final int ANCHOR_SAMPLES = 100;
    private static final MicroClock SYSTEM = new MicroClock();

    private final long anchorMicros;
    private final long anchorNanos;

    private MicroClock() {
        this(anchor(System::nanoTime, Instant::now, ANCHOR_SAMPLES));
    }

    private MicroClock(long[] anchor) {
        this.anchorNanos = anchor[0];
        this.anchorMicros = anchor[1];
    }

    /** A clock with a given anchor: the same arithmetic as the system clock, testable without reading a clock. */
    static MicroClock anchoredAt(long nanoTime, long epochMicros) {
        return new MicroClock(new long[] {nanoTime, epochMicros});
    }

    /**
     * Pairs a monotonic reading with a wall-clock reading: the wall clock is read between two
     * monotonic readings, and of several tries the pair with the shortest bracket wins, placed at
     * its middle. A single pair is off by however long the thread was held up between the two
     * reads (a GC pause or a lost core at JVM start: milliseconds), and then two processes' clocks
     * disagree by that much, which is what the timing benchmark compares.
     *
     * @return {monotonic nanos, wall-clock micros since the epoch} at the same instant
     */
    static long[] anchor(LongSupplier nanoTime, Supplier<Instant> wall, int samples) {
        long best = Long.MAX_VALUE;
        long nanos = 0;
        long micros = 0;
        for (int i = 0; i < samples; i++) {
            final long before = nanoTime.getAsLong();
            final Instant now = wall.get();
            final long after = nanoTime.getAsLong();
            if (after - before < best) {
                best = after - before;
                nanos = before + (after - before) / 2;
                micros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
            }
        }
        return new long[] {nanos, micros};
    }

    /** The process-wide clock: every component of a run shares one anchor. */
    public static MicroClock system() {
        return SYSTEM;
    }

    public long nowMicros() {
        return anchorMicros + (System.nanoTime() - anchorNanos) / 1_000;
    }

    /** The time on this clock of a {@link System#nanoTime()} reading. */
    public long micros(long nanoTime) {
        return anchorMicros + (nanoTime - anchorNanos) / 1_000;
    }

    /** The {@link System#nanoTime()} reading that corresponds to a time on this clock. */
    public long toNanoTime(long micros) {
        return anchorNanos + (micros - anchorMicros) * 1_000;
    }
}
