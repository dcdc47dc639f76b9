package dev.goodput.generator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.TokenEvent;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.generator.load.LoadRun;
import dev.goodput.generator.load.Scenario;
import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.records.TokenRuns;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.topics.Control;
import dev.goodput.topics.DeadLetters;
import dev.goodput.topics.Topics;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The generator through a real broker: exactly the events it says it published, also across a broker restart. */
class ProducerKafkaIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    private static InProcessSchemaRegistry registry;
    private static SchemaRegistryClient client;

    @BeforeAll
    static void setUp() {
        try (Admin admin = KAFKA.kafka().admin()) {
            Topics.createMissing(admin, Topics.ALL, (short) 1);
        }
        registry = InProcessSchemaRegistry.inMemory(0);
        client = new SchemaRegistryClient(registry.url());
    }

    @AfterAll
    static void tearDown() {
        registry.close();
    }

    private static KafkaEventSink sink() {
        return sink(null);
    }

    private static KafkaEventSink sink(String runId) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
        return new KafkaEventSink(p, client, Topics.TOKENS.name(), Topics.REQUESTS.name(), Topics.RUNS.name(), 1_000_000, runId)
                .closeWindowsAfter(Duration.ofMillis(1_500));
    }

    /** Partitions of a raw topic that hold the end-of-run marker of a run, and how many ticks the topic holds. */
    private static long[] controls(String topic, String runId) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
        final Set<Integer> marked = new HashSet<>();
        long ticks = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            final List<TopicPartition> parts = c.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            final Map<TopicPartition, Long> ends = c.endOffsets(parts);
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline && parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    final String kind = Control.kind(r.headers());
                    if (Control.TICK.equals(kind)) {
                        ticks++;
                    } else if (Control.END_OF_RUN.equals(kind) && runId.equals(
                            DeadLetters.header(r.headers(), Control.RUN_ID))) {
                        marked.add(r.partition());
                    }
                }
            }
            return new long[] {marked.size(), parts.size(), ticks};
        }
    }

    private static LoadRun.Settings settings(String runId, String baseUrl, double rate, long n) {
        final RunIdentity id = new RunIdentity("c".repeat(64), runId, "sim", "H100", 1, HttpFixtures.RUN.decoding(),
                "contains", 1.0);
        return new LoadRun.Settings(HttpFixtures.target(baseUrl), id, new Scenario(64, 16, rate, null, "cold"),
                HttpFixtures.CORPUS, "g1", "constant", null, 0.5, null, n, 0, null, 1_000, 3, Duration.ofSeconds(1));
    }

    @Test
    void nRequestsGiveExactlyNRequestEventsAndTheirTokenEvents() {
        final String runId = "it-plain";
        final RunSummary summary;
        final long tokensOffered;
        try (SimServer sim = new SimServer(SimConfig.defaults().withStep(2_000, 5), HttpFixtures.CORPUS, 0);
             Generator g = new Generator(new StreamingClient(256), sink(runId), quiet())) {
            summary = g.run(settings(runId, sim.baseUrl(), 200, 300));
            tokensOffered = g.sink().tokensOffered();
        }
        for (String topic : List.of(Topics.TOKENS.name(), Topics.REQUESTS.name())) {
            final long[] c = controls(topic, runId);
            assertThat(c[0]).as("partitions of %s with the run's end-of-run marker", topic).isEqualTo(c[1]).isPositive();
            assertThat(c[2]).as("ticks on %s", topic).isGreaterThanOrEqualTo(c[1]);
        }
        final List<RequestEvent> requests = read(Topics.REQUESTS.name(), RequestEvent.class, runId, 300);
        final List<TokenEvent> published = chunks(runId, (int) tokensOffered);
        final List<TokenEvent> tokens = published.stream().flatMap(t -> TokenRuns.chunks(t).stream()).toList();
        // the chunks go in runs: a request's chunks of one flush interval in one record
        assertThat(published.size()).isLessThan(tokens.size());
        assertThat(published).allSatisfy(run -> {
            for (int i = 1; i < TokenRuns.size(run); i++) {
                assertThat(TokenRuns.chunkIndex(run, i)).isEqualTo(TokenRuns.chunkIndex(run, i - 1) + 1);
                assertThat(TokenRuns.arrivalUs(run, i)).isGreaterThanOrEqualTo(TokenRuns.arrivalUs(run, i - 1));
            }
        });
        assertThat(requests).hasSize(300);
        assertThat(requests.stream().map(RequestEvent::getRequestId).distinct().count()).isEqualTo(300);
        assertThat(requests).allSatisfy(r -> {
            assertThat(r.getStatus()).isEqualTo(RequestStatus.OK);
            assertThat(r.getContractId()).isEqualTo("c".repeat(64));
            assertThat(r.getScenarioId()).isEqualTo("p64-o16-r200-cold");
            assertThat(r.getOutputTokens()).isEqualTo(16);
            assertThat(r.getContentChunks()).isEqualTo(16);
            assertThat(r.getPromptTokens()).isEqualTo(64);
        });
        assertThat(requests.stream().filter(RequestEvent::getWarmup).count()).isEqualTo(summary.getWarmupRequests())
                .isPositive();
        assertThat(tokens).hasSize(300 * 16).hasSize((int) tokensOffered);
        final Map<String, List<Integer>> chunks = new HashMap<>();
        tokens.forEach(t -> chunks.computeIfAbsent(t.getRequestId(), k -> new ArrayList<>()).add(t.getChunkIndex()));
        assertThat(chunks).hasSize(300);
        chunks.values().forEach(c -> assertThat(c).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
        final List<RunSummary> runs = read(Topics.RUNS.name(), RunSummary.class, runId, 1);
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).getRequests()).isEqualTo(300);
        assertThat(runs.get(0).getTokenEvents()).isEqualTo(300 * 16);
    }

    /**
     * A stream that stalls (no more chunks, no request event yet) still gets its run published once
     * the run is an interval old: the sink's flush waits for every offered chunk to be acknowledged,
     * which only the interval can bring about here.
     */
    @Test
    void aRunGoesOutAfterItsIntervalWithoutItsRequestEvent() {
        final String runId = "it-stall";
        try (KafkaEventSink s = sink(runId)) {
            for (int i = 0; i < 2; i++) {
                s.token(TokenEvent.newBuilder().setContractId("c".repeat(64)).setRunId(runId).setScenarioId("stall")
                        .setRequestId("stalled").setChunkIndex(i).setKind(ChunkKind.ANSWER).setTokens(1)
                        .setArrivalTimeUs(java.time.Instant.now()).setWarmup(false).build());
            }
            assertThat(s.flush(Duration.ofSeconds(60))).as("both chunks acknowledged before any request event").isTrue();
        }
        final List<TokenEvent> chunks = chunks(runId, 2).stream().flatMap(t -> TokenRuns.chunks(t).stream()).toList();
        assertThat(chunks).extracting(TokenEvent::getChunkIndex).containsExactly(0, 1);
    }

    @Test
    void aBrokerRestartMidRunLosesAndDoublesNothing() throws Exception {
        final String runId = "it-restart";
        final EmbeddedKafka kafka = KAFKA.kafka();
        final long tokensOffered;
        final long requestsOffered;
        try (SimServer sim = new SimServer(SimConfig.defaults().withStep(2_000, 5), HttpFixtures.CORPUS, 0);
             Generator g = new Generator(new StreamingClient(256), sink(), quiet())) {
            final CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(
                    () -> g.run(settings(runId, sim.baseUrl(), 100, 600)));
            Thread.sleep(2_000);
            kafka.stop();
            Thread.sleep(2_000);
            kafka.restart();
            final RunSummary s = run.get();
            assertThat(s.getRequests()).isEqualTo(600);
            tokensOffered = g.sink().tokensOffered();
            requestsOffered = g.sink().requestsOffered();
        }
        final List<RequestEvent> requests = read(Topics.REQUESTS.name(), RequestEvent.class, runId, (int) requestsOffered);
        final List<TokenEvent> tokens = chunks(runId, (int) tokensOffered).stream()
                .flatMap(t -> TokenRuns.chunks(t).stream()).toList();
        assertThat(requestsOffered).isEqualTo(600);
        assertThat(requests).hasSize(600);
        assertThat(requests.stream().map(RequestEvent::getRequestId).distinct().count()).isEqualTo(600);
        assertThat(tokens).hasSize((int) tokensOffered);
        final Set<String> distinct = new HashSet<>();
        tokens.forEach(t -> distinct.add(t.getRequestId() + "#" + t.getChunkIndex()));
        assertThat(distinct).hasSize(tokens.size());
        assertThat(tokens.size()).isEqualTo(requests.stream().mapToInt(RequestEvent::getContentChunks).sum());
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    /** Reads a topic to its end, keeping the records of one run. */
    private static <T extends SpecificRecord> List<T> read(String topic, Class<T> type, String runId, int atLeast) {
        return read(topic, type, runId, atLeast, r -> 1);
    }

    /** The chunks of a run's token events, read until {@code atLeast} chunks are in (runs hold several). */
    private static List<TokenEvent> chunks(String runId, int atLeast) {
        return read(Topics.TOKENS.name(), TokenEvent.class, runId, atLeast, TokenRuns::size);
    }

    /** Reads a topic until the kept records weigh {@code atLeast} and it is quiet, keeping the records of one run. */
    private static <T extends SpecificRecord> List<T> read(String topic, Class<T> type, String runId, int atLeast,
                                                           ToIntFunction<T> weight) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        final List<T> out = new ArrayList<>();
        try (KafkaConsumer<String, T> c = new KafkaConsumer<>(p, new StringDeserializer(), new AvroDeserializer<>(client, type))) {
            c.subscribe(List.of(topic));
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int idle = 0;
            int weighed = 0;
            while (System.nanoTime() < deadline && (weighed < atLeast || idle < 3)) {
                final var records = c.poll(Duration.ofMillis(300));
                idle = records.isEmpty() ? idle + 1 : 0;
                for (ConsumerRecord<String, T> r : records) {
                    if (Control.is(r.headers())) {
                        continue; // a generator's tick or end-of-run marker
                    }
                    if (runId.equals(((GenericRecord) r.value()).get("run_id"))) {
                        out.add(r.value());
                        weighed += weight.applyAsInt(r.value());
                    }
                }
            }
        }
        return out;
    }
}
