package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;

import dev.goodput.avro.RunSummary;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.loop.MicroClock;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import org.junit.jupiter.api.Test;

/**
 * A scenario lasts its stated time even when its next send falls after its end: at a low rate it
 * used to end right after its last send, so the demo looped its matrix far faster than the rates said.
 */
class ScenarioEndTest {

    @Test
    void aSlowScenarioRunsToItsEndTime() {
        try (SimServer server = new SimServer(SimConfig.defaults().withStep(1_000, 0).withOutput(1, 0, 0.0), HttpFixtures.CORPUS, 0);
             StreamingClient client = new StreamingClient(4)) {
            final CollectingSink sink = new CollectingSink();
            // one send at the start; the next would be 20 s later, past the 1.5 s the scenario lasts
            final LoadRun.Settings settings = new LoadRun.Settings(HttpFixtures.target(server.baseUrl()), HttpFixtures.RUN,
                    new Scenario(64, 4, 0.05, null, "cold"), HttpFixtures.CORPUS, "g1", "constant", null, 0, 1.5, null,
                    0, null, 1_000, 1, Duration.ofSeconds(30));
            final RunSummary s = new LoadRun(settings, MicroClock.system()).run(client, sink,
                    new PrintStream(OutputStream.nullOutputStream()), () -> null, () -> (long) sink.tokens.size());
            assertThat(s.getRequests()).isEqualTo(1);
            // the lower bound holds on any machine: waiting can only make it longer
            assertThat(Duration.between(s.getWarmupEndUs(), s.getEndedUs())).isGreaterThanOrEqualTo(Duration.ofMillis(1_500));
        }
    }
}
