package dev.goodput.producer;

import java.time.Instant;

/**
 * Microseconds since the epoch from the monotonic clock, anchored once to wall time. Wall time can
 * step (NTP) in the middle of a run; intervals between two readings of this clock cannot.
 */
public final class MicroClock {
    private static final MicroClock SYSTEM = new MicroClock();

    private final long anchorMicros;
    private final long anchorNanos;

    private MicroClock() {
        final Instant now = Instant.now();
        this.anchorNanos = System.nanoTime();
        this.anchorMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
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

    public static Instant toInstant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }
}
