package dev.goodput.streams;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.topics.Topics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** A real broker, synthetic runs of events, and streams-app instances in child JVMs, for the real-broker tests. */
final class StreamsHarness {

    static final Contract CONTRACT = ContractLoader.load(Path.of("../config/contract.yaml"));
    static final int SECONDS = 60;
    static final int REQUESTS_PER_SECOND = 20;
    static final int CHUNKS = 12;
    /** Requests sent in the last second complete after it: 7 windows of 10 s per scenario, 2 scenarios. */
    static final int WINDOWS = 2 * (SECONDS / 10 + 1);

    private final String bootstrap;
    private final String tokensTopic;
    private final String requestsTopic;

    StreamsHarness(String bootstrap, String tokensTopic, String requestsTopic, int partitions) {
        this.bootstrap = bootstrap;
        this.tokensTopic = tokensTopic;
        this.requestsTopic = requestsTopic;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // a recorded log: each record carries the time the broker would have stamped it with when the
            // event was published (CreateTime keeps the producer's stamp), so a run of 60 s written in one
            // go is judged as if it had been published as it happened
            Topics.createMissing(admin, List.of(
                    Topics.TOKENS.named(tokensTopic).withPartitions(partitions).withConfig("message.timestamp.type", "CreateTime"),
                    Topics.REQUESTS.named(requestsTopic).withPartitions(partitions).withConfig("message.timestamp.type", "CreateTime")),
                    (short) 1);
        }
    }

    /** A recent window-aligned start (raw topics keep everything; internal ones keep 7 days). */
    static long recentStartUs() {
        return (Instant.now().minusSeconds(600).toEpochMilli() / 10_000) * 10_000 * 1_000;
    }

    /** Two scenarios over seconds [from, to) of event time; trailing requests on every partition close all windows. */
    void produceRun(SchemaRegistryClient client, long t0, int from, int to, boolean trailers) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        try (KafkaProducer<String, SpecificRecord> producer = new KafkaProducer<>(p, new StringSerializer(),
                new AvroSerializer<>(client, false))) {
            int n = from * REQUESTS_PER_SECOND;
            for (int s = from; s < to; s++) {
                for (int k = 0; k < REQUESTS_PER_SECOND; k++) {
                    final String scenario = k % 2 == 0 ? "p64-o12-r10-cold" : "p64-o12-r10-warm";
                    final long intended = t0 + s * 1_000_000L + k * 50_000L;
                    send(producer, "req-" + n++, scenario, intended, 30_000 + (n % 17) * 1_000, 5_000 + (n % 7) * 700,
                            n % 23 == 0 ? RequestStatus.ERROR : RequestStatus.OK, n % 11 != 0);
                }
            }
            for (int k = 0; trailers && k < 16; k++) {
                send(producer, "trailer-" + k, "trailer", t0 + (SECONDS + 30) * 1_000_000L + k, 1_000, 1_000,
                        RequestStatus.OK, true);
            }
            producer.flush();
        }
    }

    private void send(KafkaProducer<String, SpecificRecord> producer, String id, String scenario, long intended,
                             long ttft, long itl, RequestStatus status, boolean qualityPass) {
        final long first = intended + ttft;
        final int chunks = status == RequestStatus.OK ? CHUNKS : 0;
        for (int c = 0; c < chunks; c++) {
            final long at = first + c * itl;
            producer.send(new ProducerRecord<>(tokensTopic, null, at / 1000, id, TokenEvent.newBuilder()
                    .setContractId(CONTRACT.id()).setRunId("it").setScenarioId(scenario).setRequestId(id).setChunkIndex(c)
                    .setKind(ChunkKind.ANSWER).setTokens(1).setArrivalTimeUs(at(at)).setWarmup(false).build()));
        }
        final long last = first + (chunks - 1) * itl;
        final long completion = status == RequestStatus.OK ? last + 50 : intended + 20_000;
        final RequestEvent.Builder r = RequestEvent.newBuilder().setContractId(CONTRACT.id()).setRunId("it")
                .setScenarioId(scenario).setTargetId("sim").setGpuType("H100").setGpuCount(1).setRequestId(id)
                .setAttempt(1).setIntendedSendTimeUs(at(intended)).setActualSendTimeUs(at(intended + 80))
                .setCompletionTimeUs(at(completion)).setPromptTokens(64).setOutputTokens(chunks)
                .setOutputTokensSource(TokenCountSource.SERVER_USAGE).setContentChunks(chunks).setStatus(status)
                .setWarmup(false);
        if (status == RequestStatus.OK) {
            r.setFirstChunkTimeUs(at(first)).setFirstAnswerTimeUs(at(first)).setLastChunkTimeUs(at(last))
                    .setQualityScore(qualityPass ? 1.0 : 0.0).setQualityPass(qualityPass).setHttpStatus(200);
        } else {
            r.setErrorClass("http_503").setHttpStatus(503);
        }
        producer.send(new ProducerRecord<>(requestsTopic, null, completion / 1000, id, r.build()));
    }

    private static Instant at(long us) {
        return Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1_000L);
    }

    Process start(String appId, Path state, String registryUrl, Path dir, boolean slow) throws IOException {
        // a slow first instance: small polls and short commits, so the kill lands mid-run
        return start(appId, state, registryUrl, dir, (slow ? "max.poll.records=20\ncommit.interval.ms=100\n"
                : "commit.interval.ms=200\n") + "session.timeout.ms=6000\nheartbeat.interval.ms=1000\n");
    }

    /** Starts the streams-app in a child JVM with these client properties (the defaults where empty). */
    Process start(String appId, Path state, String registryUrl, Path dir, String properties) throws IOException {
        final Path props = dir.resolve(appId + "-" + Integer.toHexString(properties.hashCode()) + ".properties");
        Files.writeString(props, properties);
        final Path out = Path.of("target", appId + "-" + System.nanoTime() + ".log");
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        // the test JVM's own -XX: flags (the build's test.jvm.flags), so a child costs what the fork does
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> a.startsWith("-XX:")).forEach(cmd::add);
        cmd.addAll(List.of("-Xmx512m", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
                "-cp", System.getProperty("java.class.path"), ChildStreams.class.getName(),
                "--bootstrap-server", bootstrap, "--schema-registry", registryUrl,
                "--application-id", appId, "--state-dir", state.toString(), "--streams.config", props.toString(),
                "--contract", "../config/contract.yaml", "--topic", "tokens=" + tokensTopic, "--topic", "requests=" + requestsTopic,
                "--topic", "window-stats=llm.window-stats-" + appId,
                "--topic", "verdicts=llm.verdicts-" + appId, "--topic", "dlq=llm.dlq-" + appId));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    Map<String, byte[]> awaitFinals(String appId, SchemaRegistryClient client, int atLeast, Duration timeout)
            throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, byte[]> finals = Map.of();
        while (System.nanoTime() < deadline) {
            finals = readFinals(appId, client);
            if (finals.size() >= atLeast) {
                return finals;
            }
            Thread.sleep(500);
        }
        return finals;
    }

    /** Final window records (committed only) of the contract's scenarios, by window key, as raw bytes. */
    Map<String, byte[]> readFinals(String appId, SchemaRegistryClient client) {
        final Map<String, byte[]> out = new TreeMap<>();
        consume(client, (k, raw, w) -> {
            if (w.getIsFinal() && !w.getScenarioId().equals("trailer")) {
                out.put(k, raw);
            }
        }, appId);
        return out;
    }

    int countFinals(String appId, SchemaRegistryClient client) {
        final int[] n = {0};
        consume(client, (k, raw, w) -> {
            if (w.getIsFinal() && !w.getScenarioId().equals("trailer")) {
                n[0]++;
            }
        }, appId);
        return n[0];
    }

    private interface Visitor {
        void visit(String key, byte[] raw, WindowStats value);
    }

    /**
     * Both runs write to llm.window-stats; each run's records are told apart by the producer's
     * transactional id prefix, which Kafka does not expose to consumers, so each run writes its own
     * topic: the app id is in the topic name.
     */
    private void consume(SchemaRegistryClient client, Visitor v, String appId) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final AvroDeserializer<WindowStats> d = new AvroDeserializer<>(client, WindowStats.class);
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of("llm.window-stats-" + appId));
            int idle = 0;
            while (idle < 4) {
                final var records = c.poll(Duration.ofMillis(250));
                idle = records.isEmpty() ? idle + 1 : 0;
                for (ConsumerRecord<String, byte[]> r : records) {
                    v.visit(r.key(), r.value(), d.deserialize(r.topic(), r.value()));
                }
            }
        }
    }
}
