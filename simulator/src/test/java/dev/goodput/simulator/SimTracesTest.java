package dev.goodput.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;

import dev.goodput.contract.load.Corpus;
import org.junit.jupiter.api.Test;

/** The simulator keeps request traces only when asked, and never more than asked: a long demo's heap stays flat. */
class SimTracesTest {
    private static final Corpus CORPUS = Corpus.load(Path.of("../config/corpus/prompts.jsonl"));


    private static void badRequests(SimServer sim, int n) throws Exception {
        final HttpClient http = HttpClient.newHttpClient();
        for (int i = 0; i < n; i++) {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/completions"))
                    .header("X-Request-Id", "bad-" + i).POST(HttpRequest.BodyPublishers.ofString("not json")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(400);
        }
    }

    @Test
    void noTracesUnlessAskedAndTheOldestGoPastTheCapacity() throws Exception {
        try (SimServer quiet = new SimServer(SimConfig.defaults(), CORPUS, 0)) {
            badRequests(quiet, 3);
            assertThat(quiet.drainTraces()).isEmpty();
        }
        try (SimServer kept = new SimServer(SimConfig.defaults(), CORPUS, 0, 2)) {
            badRequests(kept, 3);
            assertThat(kept.drainTraces()).extracting(SimTrace::requestId).containsExactly("bad-1", "bad-2");
            assertThat(kept.tracesDropped()).isEqualTo(1);
            badRequests(kept, 1);
            assertThat(kept.drainTraces()).hasSize(1);
        }
    }
}
