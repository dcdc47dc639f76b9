package dev.goodput.capture.publish;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waiting for Kafka to acknowledge what a source has sent (at a scenario's end, at close), said
 * every few seconds while it lasts: a partition whose leader is away (a broker restarting, or not yet
 * fenced) holds its events, and a generator used to sit tens of seconds between scenarios printing
 * nothing.
 */
final class AckWait {
    private static final Logger LOG = LoggerFactory.getLogger(AckWait.class);
    /** How often a wait is said. */
    static final long SAY_EVERY_NS = 5_000_000_000L;

    private AckWait() {
    }

    /** Flushes until nothing is outstanding, a failure, or the timeout; true when everything was acknowledged. */
    static boolean until(LongSupplier outstanding, BooleanSupplier failed, Runnable flush, Duration timeout) {
        final long start = System.nanoTime();
        final long deadline = start + timeout.toNanos();
        long nextSay = start + SAY_EVERY_NS;
        while (outstanding.getAsLong() > 0 && !failed.getAsBoolean() && System.nanoTime() < deadline) {
            if (System.nanoTime() >= nextSay) {
                nextSay += SAY_EVERY_NS;
                LOG.warn("waiting {} s for Kafka to acknowledge {} event(s): a partition without a leader (a broker restarting or"
                        + " being fenced) holds them; nothing is dropped while it waits (up to {} s)",
                        (System.nanoTime() - start) / 1_000_000_000L, outstanding.getAsLong(), timeout.toSeconds());
            }
            flush.run();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return outstanding.getAsLong() <= 0;
    }
}
