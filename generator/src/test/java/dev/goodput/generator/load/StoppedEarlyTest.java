package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.goodput.avro.RunSummary;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.loop.MicroClock;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import org.junit.jupiter.api.Test;

/** A scenario stopped before its planned end says so on its summary: its figures cover only the part that ran. */
class StoppedEarlyTest {

    private static RunSummary run(Long requests, Double seconds, Supplier<String> failure) {
        try (SimServer sim = new SimServer(SimConfig.defaults(), HttpFixtures.CORPUS, 0);
             StreamingClient client = new StreamingClient(8)) {
            final CollectingSink sink = new CollectingSink();
            final LoadRun.Settings settings = new LoadRun.Settings(HttpFixtures.target(sim.baseUrl()), HttpFixtures.RUN,
                    new Scenario(16, 2, 20.0, null, "cold"), HttpFixtures.CORPUS, "g1", "constant", null, 0, seconds, requests,
                    0, null, 1_000, 1, Duration.ofSeconds(30), null);
            return new LoadRun(settings, MicroClock.system()).run(client, sink, new PrintStream(OutputStream.nullOutputStream()),
                    failure, () -> (long) sink.tokens.size());
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
}
