package dev.goodput.definitions;

import java.time.Instant;

/** Event times are microseconds since the epoch (Avro's timestamp-micros); these are the two conversions. */
public final class Micros {
    private Micros() {
    }

    /** Microseconds since the epoch of an instant (sub-microsecond digits dropped). */
    public static long of(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    /** The instant of a number of microseconds since the epoch (negative ones too). */
    public static Instant toInstant(long us) {
        return Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1_000L);
    }
}
