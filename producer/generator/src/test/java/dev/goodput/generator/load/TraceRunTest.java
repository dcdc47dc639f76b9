package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.RequestEvent;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.StreamingClient;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Micros;
import dev.goodput.loop.MicroClock;
import org.junit.jupiter.api.Test;

/** What a trace says reaches the requests the generator sends: their schedule, lengths and shared prefixes, seen at a test server. */
class TraceRunTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path TRACES = Path.of("src/test/resources/traces");

    /** The bodies a test server received, in arrival order, and the generator's request events. */
    private record Seen(List<JsonNode> bodies, List<RequestEvent> events) {
    }

    private static Seen run(Trace trace, boolean ignoreEos) throws Exception {
        final List<JsonNode> bodies = new ArrayList<>();
        final HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            final JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
            synchronized (bodies) {
                bodies.add(body);
            }
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            final OutputStream out = ex.getResponseBody();
            for (String e : List.of("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n",
                    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" b\"},\"finish_reason\":\"length\"}]}\n\n",
                    "data: [DONE]\n\n")) {
                out.write(e.getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            out.close();
        });
        server.start();
        try (StreamingClient client = new StreamingClient(16)) {
            final RunIdentity run = new RunIdentity("c".repeat(64), "run-t", "sim", "H100", 1,
                    new Contract.Decoding(0.0, 1.0, null, 7L, ignoreEos), "contains", 1.0);
            final CollectingSink sink = new CollectingSink();
            final LoadRun.Settings settings = new LoadRun.Settings(HttpFixtures.target(HttpFixtures.baseUrl(server)), run,
                    new Scenario(64, 16, 1.0, null, "cold"), HttpFixtures.CORPUS, "g1", "trace", null, 0, null, null,
                    0, trace, 1_000, 1, Duration.ofSeconds(30));
            new LoadRun(settings, MicroClock.system()).run(client, sink, new PrintStream(OutputStream.nullOutputStream()),
                    () -> null, () -> (long) sink.tokens.size());
            final List<RequestEvent> events = new ArrayList<>(sink.requests);
            events.sort(Comparator.comparing(RequestEvent::getIntendedSendTimeUs));
            return new Seen(bodies, events);
        } finally {
            server.stop(0);
        }
    }

    private static String[] words(JsonNode body) {
        return body.path("messages").get(0).path("content").asText().split("\\s+");
    }

    /** The body the server received for a prompt of this many words (each request's length is distinct here). */
    private static JsonNode byLength(List<JsonNode> bodies, int words) {
        return bodies.stream().filter(b -> words(b).length == words).findFirst().orElseThrow(
                () -> new AssertionError("no request of " + words + " words among " + bodies.stream().map(b -> words(b).length).toList()));
    }

    @Test
    void mooncakesScheduleLengthsAndSharedBlocksReachTheServer() throws Exception {
        final Seen seen = run(Trace.read(TRACES.resolve("mooncake.jsonl"), null, 4), true);
        assertThat(seen.events()).hasSize(3);
        // offsets 0, 250 and 1000 ms at four times the speed: intended sends 62.5 ms and 250 ms after the first
        final long t0 = Micros.of(seen.events().get(0).getIntendedSendTimeUs());
        assertThat(seen.events()).extracting(e -> Micros.of(e.getIntendedSendTimeUs()) - t0).containsExactly(0L, 62_500L, 250_000L);
        final JsonNode a = byLength(seen.bodies(), 1100);
        final JsonNode b = byLength(seen.bodies(), 1300);
        final JsonNode c = byLength(seen.bodies(), 600);
        assertThat(a.path("max_tokens").asInt()).isEqualTo(12);
        assertThat(b.path("max_tokens").asInt()).isEqualTo(7);
        assertThat(c.path("max_tokens").asInt()).isEqualTo(30);
        // the contract asks for ignore_eos, so the trace's length is also the floor
        assertThat(a.path("min_tokens").asInt()).isEqualTo(12);
        assertThat(a.path("ignore_eos").asBoolean()).isTrue();
        // hash ids [0, 1, 2] and [0, 1, 3]: the first two 512-token blocks are the same words, the third is not
        final String[] wa = words(a);
        final String[] wb = words(b);
        assertThat(Arrays.copyOf(wa, 1024)).isEqualTo(Arrays.copyOf(wb, 1024));
        assertThat(Arrays.copyOfRange(wa, 1024, 1090)).isNotEqualTo(Arrays.copyOfRange(wb, 1024, 1090));
        // [4, 5] shares nothing with [0, 1, 2]
        assertThat(Arrays.copyOf(words(c), 64)).isNotEqualTo(Arrays.copyOf(wa, 64));
        // the run is named and described by its trace, not by the contract's default rate
        assertThat(seen.events()).allSatisfy(e -> assertThat(e.getScenarioId()).isEqualTo("trace-mooncake-x4"));
        final Trace t = Trace.read(TRACES.resolve("mooncake.jsonl"), null, 4);
        // three sends over 250 ms: two intervals, 8 req/s
        assertThat(t.meanRateRps()).isCloseTo(8.0, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(t.scenarioId()).isEqualTo("trace-mooncake-x4");
        assertThat(Trace.read(TRACES.resolve("mooncake.jsonl"), null, 1).scenarioId()).isEqualTo("trace-mooncake");
        // the event records what was asked
        final RequestEvent first = seen.events().get(0);
        assertThat(first.getMaxTokens()).isEqualTo(12);
        assertThat(first.getMinTokens()).isEqualTo(12);
        assertThat(first.getIgnoreEos()).isTrue();
        assertThat(first.getPromptTokens()).isEqualTo(1100);
    }

    @Test
    void azureLengthsReachTheServerWithoutAFloorWhenTheContractDoesNotIgnoreEos() throws Exception {
        final Seen seen = run(Trace.read(TRACES.resolve("azure-llm-inference.csv"), null, 1000), false);
        assertThat(seen.events()).hasSize(4);
        for (int[] lengths : new int[][] {{374, 44}, {396, 109}, {879, 21}, {91, 3}}) {
            final JsonNode body = byLength(seen.bodies(), lengths[0]);
            assertThat(body.path("max_tokens").asInt()).isEqualTo(lengths[1]);
            assertThat(body.has("min_tokens")).isFalse();
        }
        assertThat(seen.events()).allMatch(e -> e.getMinTokens() == null && Boolean.FALSE.equals(e.getIgnoreEos()));
    }
}
