package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import dev.goodput.config.Durations;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.assembly.time.LogClock;
import dev.goodput.testing.SampleRecords;
import dev.goodput.topics.Control;
import dev.goodput.topics.DeadLetters;
import dev.goodput.topics.Topics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chaos on a real broker: while the demo runs (its generator, streams-app and sink as one process,
 * on this broker and registry), one record of every bad kind is published straight onto the raw
 * topics. Every one reaches the DLQ with its reason, every good request of the run has exactly one
 * verdict, windows keep closing after the injection, the app keeps running to a clean Ctrl-C, and
 * the report bundle states the DLQ counts by reason.
 */
class ChaosIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    private static final Contract CONTRACT = ContractLoader.load(Path.of("../config/contract.yaml"));

    @Test
    void oneRecordOfEveryBadKindIsRefusedWithItsReasonAndNothingGoodIsLostOrCountedTwice(@TempDir Path dir) throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final String out;
            final Map<String, String> expected;
            final Instant injected;
            // short windows (2 s, grace 5 s): windows close soon after the injection, and the closing wait is 7 s
            try (ChildCli demo = ChildCli.start(ChildCli.SHORT_WINDOWS, "demo", "--bootstrap-server", KAFKA.kafka().bootstrapServers(),
                    "--schema-registry", registry.url(), "--contract", "../config/contract.yaml", "--matrix",
                    "../config/scenarios.yaml", "--prices", "../config/prices.yaml", "--report-dir", dir.resolve("reports").toString(),
                    "--scenario-seconds", "5")) {
                final String started = demo.awaitLine("Goodput ");
                runOfTheDemo = started.substring(started.lastIndexOf(' ') + 1).trim();
                demo.awaitLine("Press Ctrl-C");
                Thread.sleep(8_000);
                injected = Instant.now();
                expected = inject(client);
                // windows must keep closing after the injection: two windows and a grace (9 s), and more
                Thread.sleep(14_000);
                out = demo.interruptAndWait();
            }
            assertThat(out).contains("Stopped.").doesNotContain("stopped:").doesNotContain("WARNING");

            // 100 % of the bad records in the DLQ, each with its reason
            final Map<String, String> reasons = new HashMap<>();
            ConsumerRecord<byte[], byte[]> huge = null;
            for (ConsumerRecord<byte[], byte[]> r : readAll(Topics.DLQ.name())) {
                final String key = r.key() == null ? "<null key>" : new String(r.key(), StandardCharsets.UTF_8);
                reasons.put(key, DeadLetters.header(r.headers(), DeadLetters.REASON));
                if (key.equals("bad-huge")) {
                    huge = r;
                }
                if (key.equals(republishedId)) {
                    // the DLQ record keeps the refused record's log time: the copy is late if that passed the
                    // original's window end plus the demo's grace
                    final long completionUs = republishedCompletion.getEpochSecond() * 1_000_000L + republishedCompletion.getNano() / 1_000;
                    if (LogClock.late(completionUs, r.timestamp() * 1_000L, WINDOW_US, GRACE_US)) {
                        expected.put(key, "late");
                    }
                }
            }
            expected.forEach((key, reason) -> assertThat(reasons.get(key)).as("DLQ reason of " + key).isEqualTo(reason));
            assertThat(huge).isNotNull();
            assertThat(huge.value().length).isLessThanOrEqualTo(DeadLetters.MAX_VALUE_BYTES);
            assertThat(DeadLetters.header(huge.headers(), DeadLetters.TRUNCATED_FROM)).isEqualTo(Integer.toString(HUGE));

            // every good request of the run has exactly one verdict, and no bad one has any
            final Path bundle;
            try (Stream<Path> runs = Files.list(dir.resolve("reports"))) {
                bundle = runs.findFirst().orElseThrow();
            }
            final String runId = bundle.getFileName().toString();
            final AvroDeserializer<RequestEvent> requests = new AvroDeserializer<>(client, RequestEvent.class);
            final List<String> good = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : readAll(Topics.REQUESTS.name())) {
                final String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
                if (!Control.is(r.headers()) && !key.startsWith("bad-") && r.offset() >= 0) {
                    final RequestEvent e = requests.deserialize(Topics.REQUESTS.name(), r.value());
                    if (e.getRunId().equals(runId) && !e.getWarmup() && !good.contains(e.getRequestId())) {
                        good.add(e.getRequestId());
                    }
                }
            }
            assertThat(good).hasSizeGreaterThan(20);
            final Map<String, Integer> verdicts = new HashMap<>();
            final AvroDeserializer<RequestVerdict> v = new AvroDeserializer<>(client, RequestVerdict.class);
            for (ConsumerRecord<byte[], byte[]> r : readAll(Topics.VERDICTS.name())) {
                verdicts.merge(v.deserialize(Topics.VERDICTS.name(), r.value()).getRequestId(), 1, Integer::sum);
            }
            assertThat(good).allSatisfy(id -> assertThat(verdicts.get(id)).as("verdicts of " + id).isEqualTo(1));
            assertThat(verdicts.keySet()).noneMatch(id -> id.startsWith("bad-"));

            // windows kept closing after the injection
            final AvroDeserializer<WindowStats> w = new AvroDeserializer<>(client, WindowStats.class);
            long laterFinals = 0;
            for (ConsumerRecord<byte[], byte[]> r : readAll(Topics.WINDOW_STATS.name())) {
                final WindowStats s = w.deserialize(Topics.WINDOW_STATS.name(), r.value());
                if (s.getIsFinal() && s.getWindowStartUs().isAfter(injected)) {
                    laterFinals++;
                }
            }
            assertThat(laterFinals).as("final windows starting after the injection").isPositive();

            // the bundle states what was refused, by reason
            final Map<?, ?> manifest = new ObjectMapper()
                    .readValue(bundle.resolve("manifest.json").toFile(), Map.class);
            final Map<?, ?> dead = (Map<?, ?>) manifest.get("dead_letters_by_reason");
            for (String reason : new HashSet<>(expected.values())) {
                assertThat(((Number) dead.get(reason)).longValue()).as("bundle count of " + reason).isPositive();
            }
            assertThat(((Number) manifest.get("verdicts")).longValue()).isEqualTo(((Number) manifest.get("measured_requests")).longValue());
            assertThat(out).containsPattern("Accounted: \\d+ measured requests, \\d+ verdicts; \\d+ records refused");
            // the bad records that carry the run's own id: the report's door checks (the streams-app's) leave them out of
            // every figure and account, name them by reason, and make no scenario of them
            final Map<?, ?> door = (Map<?, ?>) manifest.get("refused_at_the_door");
            for (String reason : List.of("duration_out_of_range", "from_the_future", "chunks_out_of_order")) {
                assertThat(((Number) door.get(reason)).longValue()).as("left out by the report: " + reason).isEqualTo(1);
            }
            assertThat(String.valueOf(manifest.get("incomplete_scenarios"))).doesNotContain("chaos-bad");
            // and the at-least-once copy of one of the run's request events, refused as the streams-app refuses it
            assertThat(((Number) door.get("duplicate")).longValue()).as("the copy left out by the report").isEqualTo(1);
            assertThat(out).contains("The report left out 4 raw events of the run that the door checks refuse");
        }
    }

    private static final int HUGE = 5 * 1024 * 1024;
    /** The demo's windowing, as ChildCli.SHORT_WINDOWS sets it. */
    private static final long WINDOW_US = Durations.parse(ChildCli.SHORT_WINDOWS.get("GOODPUT_WINDOW"), "window").toNanos() / 1_000;
    private static final long GRACE_US = Durations.parse(ChildCli.SHORT_WINDOWS.get("GOODPUT_GRACE"), "grace").toNanos() / 1_000;
    private static String runOfTheDemo;

    private static RequestEvent inRun(RequestEvent e) {
        return RequestEvent.newBuilder(e).setRunId(runOfTheDemo).setScenarioId("chaos-bad").setWarmup(false).build();
    }
    private static String republishedId;
    private static Instant republishedCompletion;

    /** Publishes one record of every bad kind; returns the DLQ reason expected for each, by key. */
    private static Map<String, String> inject(SchemaRegistryClient client) throws Exception {
        final Map<String, String> expected = new LinkedHashMap<>();
        final AvroSerializer<SpecificRecord> avro = new AvroSerializer<>(client, false);
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(2 * HUGE));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Integer.toString(8 * HUGE));
        final String tokens = Topics.TOKENS.name();
        final String reqs = Topics.REQUESTS.name();
        final Instant now = Instant.now();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            send(producer, reqs, "bad-schema", new byte[] {0, 0, 1, (byte) 0x86, (byte) 0x9F, 2, 4, 6});
            expected.put("bad-schema", "unknown_schema_id");
            send(producer, reqs, "bad-magic", "garbage".getBytes(StandardCharsets.US_ASCII));
            expected.put("bad-magic", "bad_magic");
            send(producer, reqs, "bad-truncated", new byte[] {0, 0});
            expected.put("bad-truncated", "truncated");
            producer.send(new ProducerRecord<>(tokens, null, avro.serialize(tokens, token("no-key", 0, now)))).get();
            expected.put("<null key>", "null_key");
            send(producer, tokens, "bad-chunk-neg", avro.serialize(tokens, token("bad-chunk-neg", -1, now)));
            expected.put("bad-chunk-neg", "chunk_index_out_of_range");
            send(producer, tokens, "bad-chunk-huge", avro.serialize(tokens, token("bad-chunk-huge", 2_000_000_000, now)));
            expected.put("bad-chunk-huge", "chunk_index_out_of_range");
            final Instant y2100 = Instant.parse("2100-01-01T00:00:00Z");
            send(producer, reqs, "bad-2100", avro.serialize(reqs, request("bad-2100", y2100, y2100.plusMillis(900))));
            expected.put("bad-2100", "from_the_future");
            send(producer, reqs, "bad-fast-clock", avro.serialize(reqs, request("bad-fast-clock", now.plusSeconds(1800),
                    now.plusSeconds(1801))));
            expected.put("bad-fast-clock", "from_the_future");
            send(producer, reqs, "bad-1970", avro.serialize(reqs, request("bad-1970", Instant.EPOCH, now)));
            expected.put("bad-1970", "duration_out_of_range");
            final RequestEvent early = RequestEvent.newBuilder(request("bad-first-before-send", now.minusSeconds(1), now))
                    .setFirstChunkTimeUs(now.minusSeconds(4)).build();
            send(producer, reqs, "bad-first-before-send", avro.serialize(reqs, early));
            expected.put("bad-first-before-send", "first_chunk_before_send");
            final RequestEvent backwards = RequestEvent.newBuilder(request("bad-backwards", now.minusSeconds(1), now))
                    .setFirstChunkTimeUs(now.minusMillis(100)).setLastChunkTimeUs(now.minusMillis(500)).build();
            send(producer, reqs, "bad-backwards", avro.serialize(reqs, backwards));
            expected.put("bad-backwards", "chunks_out_of_order");
            send(producer, reqs, "bad-unknown-contract", avro.serialize(reqs, RequestEvent.newBuilder(
                    request("bad-unknown-contract", now.minusSeconds(1), now)).setContractId("f".repeat(64)).build()));
            expected.put("bad-unknown-contract", "unknown_contract");
            send(producer, reqs, "bad-late", avro.serialize(reqs, request("bad-late", now.minusSeconds(601), now.minusSeconds(600))));
            expected.put("bad-late", "late");
            // the same kinds under the demo's own run id and a scenario of their own, as a misbehaving generator of
            // the run would publish them: refused by the streams-app, and by the report with the same function
            final RequestEvent run1970 = inRun(request("bad-run-1970", Instant.EPOCH, now));
            send(producer, reqs, "bad-run-1970", avro.serialize(reqs, run1970));
            expected.put("bad-run-1970", "duration_out_of_range");
            send(producer, reqs, "bad-run-2100", avro.serialize(reqs, inRun(request("bad-run-2100", y2100, y2100.plusMillis(900)))));
            expected.put("bad-run-2100", "from_the_future");
            send(producer, reqs, "bad-run-backwards", avro.serialize(reqs, inRun(RequestEvent.newBuilder(backwards)
                    .setRequestId("bad-run-backwards").build())));
            expected.put("bad-run-backwards", "chunks_out_of_order");
            // 5 MB that compresses far under the broker's 1 MB limit
            final byte[] big = new byte[HUGE];
            send(producer, reqs, "bad-huge", big);
            expected.put("bad-huge", "unknown_schema_id");
            // an at-least-once re-publish of the run's latest request event: a duplicate, unless the log receives
            // the copy after the original's window and grace (a slow machine), when it is late; both are refusals
            final AvroDeserializer<RequestEvent> decoder = new AvroDeserializer<>(client, RequestEvent.class);
            final ConsumerRecord<byte[], byte[]> last = latest(reqs, decoder);
            final String id = new String(last.key(), StandardCharsets.UTF_8);
            republishedCompletion = decoder.deserialize(reqs, last.value()).getCompletionTimeUs();
            send(producer, reqs, id, last.value());
            expected.put(id, "duplicate");
            republishedId = id;
            producer.flush();
        }
        return expected;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String key, byte[] value) throws Exception {
        producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value)).get();
    }

    private static TokenEvent token(String id, int chunk, Instant at) {
        return TokenEvent.newBuilder(SampleRecords.token()).setContractId(CONTRACT.id()).setRunId("chaos").setRequestId(id)
                .setChunkIndex(chunk).setArrivalTimeUs(at).build();
    }

    private static RequestEvent request(String id, Instant intended, Instant completion) {
        return RequestEvent.newBuilder(SampleRecords.request()).setContractId(CONTRACT.id()).setRunId("chaos").setRequestId(id)
                .setIntendedSendTimeUs(intended).setActualSendTimeUs(intended).setFirstChunkTimeUs(completion)
                .setFirstAnswerTimeUs(completion).setLastChunkTimeUs(completion).setCompletionTimeUs(completion)
                .setContentChunks(0).build();
    }

    /** The request event the log received last (the most recent request of the run: its window is still open). */
    private static ConsumerRecord<byte[], byte[]> latest(String topic, AvroDeserializer<RequestEvent> d) {
        ConsumerRecord<byte[], byte[]> best = null;
        for (ConsumerRecord<byte[], byte[]> r : readAll(topic)) {
            if (!Control.is(r.headers()) && r.key() != null && (best == null || r.timestamp() > best.timestamp())
                    && !new String(r.key(), StandardCharsets.UTF_8).startsWith("bad-")
                    && !d.deserialize(topic, r.value()).getWarmup()) {
                best = r;
            }
        }
        return best;
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(2 * HUGE));
        final List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            final List<TopicPartition> parts = c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            final Map<TopicPartition, Long> ends = c.endOffsets(parts);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}
