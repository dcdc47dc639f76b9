package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.goodput.avro.RunSummary;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import dev.goodput.definitions.ServingSummary;
import dev.goodput.loop.MicroClock;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import org.junit.jupiter.api.Test;

/** A scenario stopped before its planned end says so on its summary: its figures cover only the part that ran. */
class StoppedEarlyTest {

    private static RunSummary run(Long requests, Double seconds, Supplier<String> failure) {
        return run(0, requests, seconds, failure, null);
    }

    /** Runs a scenario with {@code warmupS} of warm-up; hands the LoadRun to {@code after}, if given, once it has run. */
    private static RunSummary run(double warmupS, Long requests, Double seconds, Supplier<String> failure,
                                  Consumer<LoadRun> after) {
        try (SimServer sim = new SimServer(SimConfig.defaults(), HttpFixtures.CORPUS, 0);
             StreamingClient client = new StreamingClient(8)) {
            final CollectingSink sink = new CollectingSink();
            final LoadRun.Settings settings = new LoadRun.Settings(HttpFixtures.target(sim.baseUrl()), HttpFixtures.RUN,
                    new Scenario(16, 2, 20.0, null, "cold"), HttpFixtures.CORPUS, "g1", "constant", null, warmupS, seconds,
                    requests, 0, null, 1_000, 1, Duration.ofSeconds(30), null);
            final LoadRun load = new LoadRun(settings, MicroClock.system());
            final RunSummary s = load.run(client, sink, new PrintStream(OutputStream.nullOutputStream()), failure,
                    () -> (long) sink.tokens.size());
            if (after != null) {
                after.accept(load);
            }
            return s;
        }
    }

    @Test
    void aScenarioThatRanToItsEndIsNotMarked() {
        assertThat(run(3L, null, () -> null).getStoppedEarly()).isFalse();
    }

    @Test
    void aScenarioStoppedMidWayIsMarked() {
        // "stopped" after a few requests' worth of polls, long before the planned 60 s
        final AtomicInteger polls = new AtomicInteger();
        final RunSummary s = run(null, 60.0, () -> polls.incrementAndGet() > 5 ? "stopped" : null);
        assertThat(s.getStoppedEarly()).isTrue();
        assertThat(s.getRequests()).isLessThan(60 * 20);
    }

    @Test
    void aScenarioStoppedInItsWarmUpMeasuredNoTime() {
        // planned: 600 s of warm-up, then 60 s; "stopped" after a few polls
        final AtomicInteger polls = new AtomicInteger();
        final AtomicReference<LoadRun> load = new AtomicReference<>();
        final RunSummary s = run(600, null, 60.0, () -> polls.incrementAndGet() > 5 ? "stopped" : null, load::set);
        final long started = Micros.of(s.getStartedUs());
        final long ended = Micros.of(s.getEndedUs());
        // whenever it stopped: the warm-up ended at its planned end or with the run, whichever came first
        assertThat(Micros.of(s.getWarmupEndUs())).isEqualTo(Math.min(started + 600_000_000L, ended));
        final ServingSummary printed = load.get().servingSummary(s);
        assertThat(printed.durationS()).isEqualTo(Definitions.measuredSeconds(Micros.of(s.getWarmupEndUs()), ended))
                .isNotNegative();
        if (ended < started + 600_000_000L) {
            assertThat(printed.durationS()).isZero();
            assertThat(printed.successful() + printed.failed()).isZero();
        }
    }
}
