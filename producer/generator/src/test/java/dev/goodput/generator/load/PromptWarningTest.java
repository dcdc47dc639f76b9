package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.RunSummary;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.loop.MicroClock;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import org.junit.jupiter.api.Test;

/** A target that counts prompts otherwise than the contract's tokenizer sized them is named at the scenario's end. */
class PromptWarningTest {

    private static LoadRun run(String baseUrl, CollectingSink sink, RunSummary[] summary) {
        try (StreamingClient client = new StreamingClient(8)) {
            final LoadRun.Settings settings = new LoadRun.Settings(HttpFixtures.target(baseUrl), HttpFixtures.RUN,
                    new Scenario(64, 2, 20.0, null, "cold"), HttpFixtures.CORPUS, "g1", "constant", null, 0, null, 3L,
                    0, null, 1_000, 1, Duration.ofSeconds(30), null);
            final LoadRun run = new LoadRun(settings, MicroClock.system());
            summary[0] = run.run(client, sink, new PrintStream(OutputStream.nullOutputStream()), () -> null,
                    () -> (long) sink.tokens.size());
            return run;
        }
    }

    @Test
    void promptsTheServerCountsTwiceAsLongAreNamed() throws Exception {
        final HttpServer s = HttpFixtures.scripted(List.of("data: {\"choices\":[{\"delta\":{\"content\":\"Paris\"}}],"
                + "\"system_fingerprint\":\"b1-80fb11a\"}\n\n",
                "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":129,\"completion_tokens\":1}}\n\n", "data: [DONE]\n\n"), false);
        try {
            final RunSummary[] summary = new RunSummary[1];
            final LoadRun run = run(HttpFixtures.baseUrl(s), new CollectingSink(), summary);
            assertThat(summary[0].getPromptsOff()).isEqualTo(3);
            // a target that says its build nowhere else: its stream's system_fingerprint
            assertThat(summary[0].getTargetVersion()).isEqualTo("b1-80fb11a");
            assertThat(run.promptWarning()).startsWith("WARNING: 3 request(s)").contains("64 intended, 129 counted by the server")
                    .contains("goodput/whitespace");
        } finally {
            s.stop(0);
        }
    }

    @Test
    void theSimulatorCountsWhatWasSized() {
        try (SimServer sim = new SimServer(SimConfig.defaults(), HttpFixtures.CORPUS, 0)) {
            final RunSummary[] summary = new RunSummary[1];
            final CollectingSink sink = new CollectingSink();
            final LoadRun run = run(sim.baseUrl(), sink, summary);
            assertThat(sink.requests).hasSize(3).allMatch(e -> e.getPromptTokens() == 64 && e.getIntendedPromptTokens() == 64);
            assertThat(summary[0].getPromptsOff()).isZero();
            assertThat(run.promptWarning()).isNull();
        }
    }
}
