package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.topics.Topics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conventions replay on a fixture published to a real broker: a request opening with a
 * role-only chunk and carrying multi-token chunks, a one-token request, a request that meets every
 * objective but fails the quality floor, and a failed request. Every expected number is worked out
 * by hand below from the formulas vLLM's bench serve and NVIDIA AIPerf document in their code.
 *
 * <p>Objectives: TTFT <= 15 ms, TPOT (AIPerf: ITL) <= 6 ms, E2E <= 60 ms. Times in microseconds from T.
 * <pre>
 * R1 intended 0, sent 1000; role-only choice 11000; content 21000 (2 tokens), 31000 (1), 41000 (2);
 *    closing empty choice 43000; 5 output tokens; quality pass.
 * R2 intended = sent 2000; role-only choice 8000; content 12000 (1 token); 1 output token; quality pass.
 * R3 intended = sent 3000; content 17000 (1 token), 18000 (3 tokens), no text-less choice; 4 output tokens;
 *    quality FAIL.
 * R4 sent 4000, HTTP 503: counted, never measured.
 * </pre>
 * Per request (TTFT / E2E / TPOT, gaps):
 * <pre>
 *            Goodput (from intended)        vLLM (from sent, choice events)     AIPerf (from sent, content)
 * R1   21000 / 41000 / 5000, [10000 10000]  10000 / 42000 / 8000, [10000 x3, 2000]  20000 / 40000 / 5000, [10000 10000]
 * R2   10000 / 10000 / -,    []             6000 / 10000 / - (0 for goodput), [4000]  10000 / 10000 / -, []
 * R3   14000 / 15000 / 333.3, [1000]        14000 / 15000 / 333.3, [1000]           14000 / 15000 / 333.3, [1000]
 * good R2 (R1 TTFT, R3 quality)             R2, R3 (R1 TPOT 8 > 6)                  R3 (R1 TTFT; R2 has no ITL)
 * </pre>
 */
class ConventionsIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Instant T = Instant.parse("2026-11-29T12:00:00Z");
    private static final String RUN = "conventions-fixture";

    @Test
    void vllmAndAiperfConventionsGiveTheToolsNumbers(@TempDir Path dir) throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            try (Admin admin = KAFKA.kafka().admin()) {
                Topics.createMissing(admin, Topics.ALL, (short) 1);
            }
            publish(registry.url(), List.of(
                    request("r1", 0, 1_000, 11_000, 21_000, 41_000, 43_000, 5, true, RequestStatus.OK),
                    token("r1", 0, 21_000, 2), token("r1", 1, 31_000, 1), token("r1", 2, 41_000, 2),
                    token("r1", 1, 31_000, 1), // published twice: one chunk
                    request("r2", 2_000, 2_000, 8_000, 12_000, 12_000, 12_000, 1, true, RequestStatus.OK),
                    token("r2", 0, 12_000, 1),
                    request("r3", 3_000, 3_000, 17_000, 17_000, 18_000, 18_000, 4, false, RequestStatus.OK),
                    token("r3", 0, 17_000, 1), token("r3", 1, 18_000, 3),
                    request("r4", 4_000, 4_000, -1, -1, -1, -1, 0, false, RequestStatus.ERROR)));

            final ByteArrayOutputStream captured = new ByteArrayOutputStream();
            final PrintStream stdout = System.out;
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            final int code;
            try {
                code = Main.run("replay", "--conventions", "--replay-id", "conv", "--run-id", RUN, "--bootstrap-server",
                        KAFKA.kafka().bootstrapServers(), "--schema-registry", registry.url(), "--contract", "../config/contract.yaml",
                        "--goodput", "ttft:15", "tpot:6", "e2el:60", "--out", dir.toString());
            } finally {
                System.setOut(stdout);
            }
            final String text = captured.toString(StandardCharsets.UTF_8);
            assertThat(code).as(text).isZero();
            assertThat(text).contains("why they differ").contains("2 of 3 requests opened with a choice event without text")
                    .contains("one-token requests: 1").contains("multi-token chunks: 3").contains("quality: 1 requests");

            final JsonNode s = new ObjectMapper().readTree(dir.resolve("conventions-conv.json").toFile()).path("scenarios").get(0);
            // duration: first send 1000 to last completion 43500
            assertThat(s.path("duration_s").asDouble()).isCloseTo(0.0425, within(1e-9));
            final JsonNode g = s.path("conventions").path("goodput");
            final JsonNode v = s.path("conventions").path("vllm");
            final JsonNode a = s.path("conventions").path("aiperf");
            for (JsonNode c : List.of(g, v, a)) {
                assertThat(c.path("requests").asLong()).isEqualTo(4);
                assertThat(c.path("ok").asLong()).isEqualTo(3);
            }
            assertThat(g.path("good").asLong()).isEqualTo(1);
            assertThat(v.path("good").asLong()).isEqualTo(2);
            assertThat(a.path("good").asLong()).isEqualTo(1);
            assertThat(v.path("goodput_rps").asDouble()).isCloseTo(2 / 0.0425, within(1e-9));

            // vLLM TTFT: [6000, 10000, 14000]; numpy linear: p50 = 10000, p99 = 10000 + 0.98 x 4000 = 13920
            stat(v, "ttft", 3, 10_000, 10_000, 13_920);
            // vLLM TPOT (more than one token): [333.33, 8000]; p50 = 4166.67; p99 = 333.33 + 0.99 x 7666.67 = 7923.33
            stat(v, "tpot", 2, (8_000 + 1_000 / 3.0) / 2, (8_000 + 1_000 / 3.0) / 2, 1_000 / 3.0 + 0.99 * (8_000 - 1_000 / 3.0));
            // vLLM ITL, every gap between choice events: [1000, 2000, 4000, 10000, 10000, 10000]; p50 rank 2.5 = 7000; p99 rank 4.95 = 10000
            stat(v, "itl", 6, 37_000 / 6.0, 7_000, 10_000);
            // vLLM E2E: [10000, 15000, 42000]; p99 = 15000 + 0.98 x 27000 = 41460
            stat(v, "e2e", 3, 67_000 / 3.0, 15_000, 41_460);

            // AIPerf TTFT: [10000, 14000, 20000]; p99 = 14000 + 0.98 x 6000 = 19880
            stat(a, "ttft", 3, 44_000 / 3.0, 14_000, 19_880);
            // AIPerf ITL per request: [333.33, 5000]; p99 = 333.33 + 0.99 x 4666.67
            stat(a, "tpot", 2, (5_000 + 1_000 / 3.0) / 2, (5_000 + 1_000 / 3.0) / 2, 1_000 / 3.0 + 0.99 * (5_000 - 1_000 / 3.0));
            // AIPerf inter-chunk latency: [1000, 10000, 10000]
            stat(a, "itl", 3, 7_000, 10_000, 10_000);
            // AIPerf request latency: [10000, 15000, 40000]; p99 = 15000 + 0.98 x 25000 = 39500
            stat(a, "e2e", 3, 65_000 / 3.0, 15_000, 39_500);

            // Goodput from the intended send: TTFT [10000, 14000, 21000]; HdrHistogram at 3 significant digits holds these exactly
            // (HdrHistogram returns the top of a value's bucket: within 0.1%)
            stat(g, "ttft", 3, 15_000, 14_000, 21_000, 0.001);
            // E2E to the end of generation, the stream's finish, as vLLM's: [10000, 15000, 43000] (r1's closing event at 43000)
            stat(g, "e2e", 3, 68_000 / 3.0, 15_000, 43_000, 0.001);
            assertThat(g.path("stats").path("tpot").path("samples").asLong()).isEqualTo(2);

            // what-if quality floor 0: R3's failed quality no longer counts, so Goodput counts R2 and R3 good, as vLLM does
            assertThat(Main.run("replay", "--conventions", "--replay-id", "floor0", "--run-id", RUN, "--bootstrap-server",
                    KAFKA.kafka().bootstrapServers(), "--schema-registry", registry.url(), "--contract", "../config/contract.yaml",
                    "--goodput", "ttft:15", "tpot:6", "e2el:60", "--quality-floor", "0", "--out", dir.toString())).isZero();
            assertThat(new ObjectMapper().readTree(dir.resolve("conventions-floor0.json").toFile()).path("scenarios").get(0)
                    .path("conventions").path("goodput").path("good").asLong()).isEqualTo(2);
            // per-window parameters do not apply to a per-request comparison: refused at start
            assertThat(Main.run("replay", "--conventions", "--replay-id", "w", "--run-id", RUN, "--bootstrap-server",
                    KAFKA.kafka().bootstrapServers(), "--schema-registry", registry.url(), "--contract", "../config/contract.yaml",
                    "--window", "30s", "--out", dir.toString())).isEqualTo(Main.EXIT_REFUSED);
        }
    }

    private static void stat(JsonNode convention, String metric, long samples, double mean, double p50, double p99) {
        stat(convention, metric, samples, mean, p50, p99, 0);
    }

    private static void stat(JsonNode convention, String metric, long samples, double mean, double p50, double p99, double relative) {
        final JsonNode st = convention.path("stats").path(metric);
        assertThat(st.path("samples").asLong()).as(metric + " samples").isEqualTo(samples);
        assertThat(st.path("mean_us").asDouble()).as(metric + " mean").isCloseTo(mean, within(1e-6));
        assertThat(st.path("p50_us").asDouble()).as(metric + " p50").isCloseTo(p50, within(1e-6 + p50 * relative));
        assertThat(st.path("p99_us").asDouble()).as(metric + " p99").isCloseTo(p99, within(1e-6 + p99 * relative));
    }

    private static RequestEvent request(String id, long intended, long sent, long firstChoice, long firstChunk, long lastChunk,
                                        long lastChoice, int tokens, boolean quality, RequestStatus status) {
        final boolean ok = status == RequestStatus.OK;
        final long completion = ok ? lastChoice + 500 : sent + 1_000;
        return RequestEvent.newBuilder().setContractId("c".repeat(64)).setRunId(RUN).setScenarioId("p64-o8-r1-cold")
                .setTargetId("fixture").setGpuType("H100").setGpuCount(1).setRequestId(id).setAttempt(1)
                .setIntendedSendTimeUs(at(intended)).setActualSendTimeUs(at(sent))
                .setFirstChunkTimeUs(ok ? at(firstChunk) : null).setFirstAnswerTimeUs(ok ? at(firstChunk) : null)
                .setLastChunkTimeUs(ok ? at(lastChunk) : null).setCompletionTimeUs(at(completion))
                .setFirstChoiceTimeUs(ok ? at(firstChoice) : null).setLastChoiceTimeUs(ok ? at(lastChoice) : null)
                .setPromptTokens(64).setOutputTokens(tokens).setOutputTokensSource(TokenCountSource.SERVER_USAGE)
                .setContentChunks(0).setStatus(status).setErrorClass(ok ? null : "http_503").setErrorMessage(null)
                .setHttpStatus(ok ? 200 : 503).setQualityScore(ok ? (quality ? 1.0 : 0.0) : null).setQualityPass(ok ? quality : null)
                .setWarmup(false).build();
    }

    private static TokenEvent token(String id, int index, long arrival, int tokens) {
        return TokenEvent.newBuilder().setContractId("c".repeat(64)).setRunId(RUN).setScenarioId("p64-o8-r1-cold").setRequestId(id)
                .setChunkIndex(index).setKind(ChunkKind.ANSWER).setTokens(tokens).setArrivalTimeUs(at(arrival)).setWarmup(false).build();
    }

    private static Instant at(long us) {
        return T.plusNanos(us * 1_000);
    }

    private static void publish(String registryUrl, List<SpecificRecord> records) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
        try (KafkaProducer<String, SpecificRecord> producer = new KafkaProducer<>(p, new StringSerializer(),
                new AvroSerializer<>(new SchemaRegistryClient(registryUrl), false))) {
            for (SpecificRecord r : records) {
                if (r instanceof RequestEvent e) {
                    producer.send(new ProducerRecord<>(Topics.REQUESTS.name(), e.getRequestId(), e));
                } else if (r instanceof TokenEvent t) {
                    producer.send(new ProducerRecord<>(Topics.TOKENS.name(), t.getRequestId(), t));
                }
            }
            producer.flush();
        }
    }
}
