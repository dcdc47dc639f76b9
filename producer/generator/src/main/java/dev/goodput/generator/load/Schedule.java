package dev.goodput.generator.load;

import java.util.SplittableRandom;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.DoubleSupplier;

/**
 * When requests are meant to be sent: the arrival schedule. Latency is measured from these
 * intended times, so a generator that falls behind its schedule shows the queueing instead of
 * hiding it. Open-loop processes (Poisson, gamma, constant rate, a trace) do not wait for
 * responses; closed-loop concurrency N sends the next request when one finishes.
 */
public interface Schedule {

    /** The next intended send time (microseconds), blocking for closed-loop arrivals until a slot frees up. */
    long next() throws InterruptedException;

    /** A request finished at {@code us}; closed-loop schedules reuse its slot. */
    default void completed(long us) {
    }

    /** Poisson arrivals at {@code rateRps}: exponential gaps. */
    static Schedule poisson(long startUs, double rateRps, double rampUpS, long seed) {
        final SplittableRandom r = new SplittableRandom(seed);
        return new OpenLoop(startUs, rateRps, rampUpS, () -> -Math.log(1.0 - r.nextDouble()) / rateRps);
    }

    /**
     * Gamma-distributed gaps with shape {@code burstiness} and mean 1/rate (vLLM's and GuideLLM's
     * burstiness factor): 1 is Poisson, below 1 burstier, above 1 more even.
     */
    static Schedule gamma(long startUs, double rateRps, double burstiness, double rampUpS, long seed) {
        final SplittableRandom r = new SplittableRandom(seed);
        final double scale = 1.0 / (rateRps * burstiness);
        return new OpenLoop(startUs, rateRps, rampUpS, () -> Gamma.sample(r, burstiness) * scale);
    }

    /** Evenly spaced arrivals. */
    static Schedule constant(long startUs, double rateRps, double rampUpS) {
        return new OpenLoop(startUs, rateRps, rampUpS, () -> 1.0 / rateRps);
    }

    /** Closed loop: {@code concurrency} requests in flight, each sent when the previous one ends. */
    static Schedule closedLoop(long startUs, int concurrency) {
        return new ClosedLoop(startUs, concurrency);
    }

    /** Replays a trace: its requests at their offsets from {@code startUs}, in order, then no more. */
    static Schedule trace(long startUs, Trace trace) {
        final var it = trace.entries().iterator();
        return () -> it.hasNext() ? startUs + it.next().offsetUs() : Long.MAX_VALUE;
    }

    /** An open-loop process of gaps in seconds, with an optional linear ramp-up of the rate. */
    final class OpenLoop implements Schedule {
        private final long startUs;
        private final double rampUpUs;
        private final DoubleSupplier gapSeconds;
        private long nextUs;
        private boolean first = true;

        OpenLoop(long startUs, double rateRps, double rampUpS, DoubleSupplier gapSeconds) {
            if (!(rateRps > 0)) {
                throw new IllegalArgumentException("the request rate must be > 0, got " + rateRps);
            }
            this.startUs = startUs;
            this.rampUpUs = rampUpS * 1e6;
            this.gapSeconds = gapSeconds;
            this.nextUs = startUs;
        }

        @Override
        public long next() {
            if (first) {
                first = false;
                return nextUs;
            }
            double gapUs = gapSeconds.getAsDouble() * 1e6;
            if (rampUpUs > 0 && nextUs - startUs < rampUpUs) {
                gapUs /= Math.max(0.05, (nextUs - startUs) / rampUpUs);
            }
            nextUs += Math.max(1, Math.round(gapUs));
            return nextUs;
        }
    }

    /** N slots; a finished request frees its slot at its completion time. */
    final class ClosedLoop implements Schedule {
        private final LinkedBlockingQueue<Long> free = new LinkedBlockingQueue<>();

        ClosedLoop(long startUs, int concurrency) {
            if (concurrency < 1) {
                throw new IllegalArgumentException("concurrency must be >= 1, got " + concurrency);
            }
            for (int i = 0; i < concurrency; i++) {
                free.add(startUs);
            }
        }

        @Override
        public long next() throws InterruptedException {
            return free.take();
        }

        @Override
        public void completed(long us) {
            free.add(us);
        }
    }
}
