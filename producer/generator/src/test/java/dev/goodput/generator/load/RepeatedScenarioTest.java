package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;

import dev.goodput.avro.RequestEvent;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.loop.MicroClock;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.simulator.SimTrace;
import org.junit.jupiter.api.Test;

/**
 * The same scenario run twice by one generator in one run (the demo loops its matrix): request
 * ids stay unique, so results never merge two requests, and a cold scenario stays cold, its
 * prompts missing the prefix cache the second time too.
 */
class RepeatedScenarioTest {

    @Test
    void aRepeatedScenarioHasNewRequestIdsAndStaysCold() {
        try (SimServer server = new SimServer(SimConfig.defaults().withStep(1_000, 0).withOutput(1, 0, 0.0), HttpFixtures.CORPUS, 0, 100_000);
             StreamingClient client = new StreamingClient(16)) {
            final CollectingSink sink = new CollectingSink();
            final LoadRun.Settings settings = new LoadRun.Settings(HttpFixtures.target(server.baseUrl()), HttpFixtures.RUN,
                    new Scenario(256, 4, 50.0, null, "cold"), HttpFixtures.CORPUS, "g1", "constant", null, 0, null, 20L,
                    0, null, 1_000, 1, Duration.ofSeconds(30));
            for (int pass = 0; pass < 2; pass++) {
                new LoadRun(settings, MicroClock.system()).run(client, sink, new PrintStream(OutputStream.nullOutputStream()),
                        () -> null, () -> (long) sink.tokens.size());
            }
            final List<String> ids = sink.requests.stream().map(RequestEvent::getRequestId).toList();
            assertThat(ids).hasSize(40);
            assertThat(new HashSet<>(ids)).hasSize(40);
            final List<SimTrace> traces = server.drainTraces();
            assertThat(traces).hasSize(40);
            // cold: a unique filler prefix per request in both passes, so nothing beyond the shared
            // question text comes from the cache
            assertThat(traces).allSatisfy(t -> assertThat(t.cachedPromptTokens()).isLessThan(t.promptTokens() / 2));
        }
    }
}
