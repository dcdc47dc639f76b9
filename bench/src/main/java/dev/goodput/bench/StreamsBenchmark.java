package dev.goodput.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.kafka.EmbeddedKafkaMain;
import dev.goodput.metrics.Micros;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.topics.Topics;
import org.HdrHistogram.Histogram;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Measures the streams-app against a broker in a child JVM, with the app itself in another child
 * JVM (heap capped at 512 MB):
 * <ol>
 *   <li>on one topic of token events, the raw consumer rate and the streams-app's processing rate;</li>
 *   <li>the heap the app needs after 10 million requests (it runs with -Xmx512m; used heap after a full GC);</li>
 *   <li>the delay from a window's end + grace to its final record being readable, in a live run.</li>
 * </ol>
 * Run with {@code ./goodput bench-streams}. Prints its figures; asserts nothing.
 */
final class StreamsBenchmark {

    private final PrintStream out;
    private final Contract contract;
    private final Path contractFile;
    private final int requests;
    private final int chunks;
    private final int heapRequests;
    private final double liveSeconds;

    StreamsBenchmark(PrintStream out, Contract contract, Path contractFile, int requests, int chunks, int heapRequests,
                     double liveSeconds) {
        this.out = out;
        this.contract = contract;
        this.contractFile = contractFile;
        this.requests = requests;
        this.chunks = chunks;
        this.heapRequests = heapRequests;
        this.liveSeconds = liveSeconds;
    }

    void run() throws Exception {
        try (ChildJvm broker = ChildJvm.start(List.of("-Xmx1g"), EmbeddedKafkaMain.class.getName(), "bootstrap=");
             InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final String bootstrap = broker.value();
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            out.printf(Locale.ROOT, "broker %s (child JVM), %d cores%n", bootstrap, Runtime.getRuntime().availableProcessors());
            rate(bootstrap, registry.url(), client);
            if (heapRequests > 0) {
                heap(bootstrap, registry.url(), client);
            }
            if (liveSeconds > 0) {
                delay(bootstrap, registry.url(), client);
            }
        }
    }

    private void rate(String bootstrap, String registryUrl, SchemaRegistryClient client) throws Exception {
        final String tokens = "bench.tokens";
        final String reqs = "bench.requests";
        createTopics(bootstrap, tokens, reqs, 2);
        // every event in the past: the raw topics are stamped at append, and events dated after that are refused
        final long t0 = windowAligned(Instant.now().minusSeconds(Math.max(3600, (long) (requests / 200.0) + 600)));
        final long produced = produce(bootstrap, client, tokens, reqs, t0, requests, chunks, 200.0);
        final long tokenEvents = (long) requests * chunks;
        out.printf(Locale.ROOT, "produced %d requests with %d chunks each: %d token events%n", requests, chunks, tokenEvents);
        out.printf(Locale.ROOT, "rates: whole run (from the first records or commit) and warm (the part after the first %.0f%%,"
                + " once the JIT has compiled the hot paths; a second pass for the raw consumer)%n", 100 * WARMUP_FRACTION);
        // raw consumer, same topic, two passes in one JVM: the first warms the JIT, the second is the warm rate
        final double[] cold = consumeAll(bootstrap, tokens, tokenEvents);
        final double[] warm = consumeAll(bootstrap, tokens, tokenEvents);
        final double rawRate = warm[1];
        out.printf(Locale.ROOT, "raw consumer:  %,d token events; whole run (first pass) %,.0f records/s; warm (second pass)"
                + " %,.0f records/s%n", (long) warm[0], cold[1], rawRate);
        // the streams-app over the same topics: as shipped (token events coalesced), then one record per event
        appRate(bootstrap, registryUrl, tokens, reqs, produced, tokenEvents, rawRate, "streams-app:  ", "rate");
        appRate(bootstrap, registryUrl, tokens, reqs, produced, tokenEvents, rawRate, "uncoalesced:  ", "rate-single",
                "--no-coalesce-tokens");
        // the ceiling: Kafka Streams with the same settings and a processor that does nothing
        final ChildJvm noop = ChildJvm.start(List.of("-Xmx512m", "-Xms512m"), NoopStreamsMain.class.getName(), "noop-streams ",
                bootstrap, "bench-noop", tokens, reqs);
        try {
            final Progress run = awaitCaughtUp(bootstrap, "bench-noop", List.of(tokens, reqs), Duration.ofMinutes(20));
            out.printf(Locale.ROOT, "baseline:      Kafka Streams, same settings, a processor that does nothing: whole run %,.0f"
                    + " records/s; warm %,.0f records/s, %.1f%% of the raw consumer's warm rate%n", run.wholeRate(),
                    run.warmRate(), 100 * run.warmRate() / rawRate);
        } finally {
            noop.close();
        }
    }

    private void appRate(String bootstrap, String registryUrl, String tokens, String reqs, long produced, long tokenEvents,
                         double rawRate, String label, String tag, String... extraArgs) throws Exception {
        final String group = "bench-" + tag;
        final ChildJvm app = startApp(bootstrap, registryUrl, group, tokens, reqs, tag, extraArgs);
        try {
            final Progress run = awaitCaughtUp(bootstrap, group, List.of(tokens, reqs), Duration.ofMinutes(20));
            // its rate counts records of both topics; token events are this share of them
            final double tokenShare = (double) tokenEvents / produced;
            out.printf(Locale.ROOT, "%s %,d token events (+%,d request events)%s; whole run %,.0f token records/s"
                    + " (%,.0f records in %.2f s between offset commits); warm %,.0f token records/s (%,.0f records in %.2f s),"
                    + " %.1f%% of the raw consumer's warm rate%n", label, tokenEvents, produced - tokenEvents,
                    extraArgs.length == 0 ? "" : " " + String.join(" ", extraArgs),
                    run.wholeRate() * tokenShare, run.wholeRecords(), run.wholeSeconds(), run.warmRate() * tokenShare,
                    run.warmRecords(), run.warmSeconds(), 100 * run.warmRate() * tokenShare / rawRate);
            // a rate means nothing if the results are not all there: one verdict per request, committed
            final long requestEvents = produced - tokenEvents;
            final long verdicts = countCommitted(bootstrap, tag + ".verdicts", requestEvents);
            out.printf(Locale.ROOT, "%s %,d verdicts committed for %,d requests%n", " ".repeat(label.length()),
                    verdicts, requestEvents);
            if (verdicts != requestEvents) {
                throw new IllegalStateException("the " + label.trim() + " run committed " + verdicts + " verdicts for "
                        + requestEvents + " requests: its rate is not a result");
            }
        } finally {
            app.close();
        }
    }

    /** Records a read_committed consumer sees on {@code topic}, reading until {@code expected} or 5 s of nothing. */
    private static long countCommitted(String bootstrap, String topic, long expected) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "count-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        long n = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long idleSince = System.nanoTime();
            while (n < expected && System.nanoTime() - idleSince < TimeUnit.SECONDS.toNanos(5)) {
                final int got = c.poll(Duration.ofMillis(200)).count();
                if (got > 0) {
                    n += got;
                    idleSince = System.nanoTime();
                }
            }
        }
        return n;
    }

    private void heap(String bootstrap, String registryUrl, SchemaRegistryClient client) throws Exception {
        final String tokens = "heap.tokens";
        final String reqs = "heap.requests";
        createTopics(bootstrap, tokens, reqs, 2);
        final long t0 = windowAligned(Instant.now().minusSeconds(7200));
        final long start = System.nanoTime();
        produce(bootstrap, client, tokens, reqs, t0, heapRequests, 2, 2000.0);
        out.printf(Locale.ROOT, "produced %,d requests (2 chunks each) in %.1f s%n", heapRequests, (System.nanoTime() - start) / 1e9);
        final ChildJvm app = startApp(bootstrap, registryUrl, "bench-heap", tokens, reqs, "heap");
        try {
            final long s0 = System.nanoTime();
            awaitCaughtUp(bootstrap, "bench-heap", List.of(tokens, reqs), Duration.ofMinutes(40));
            final double s = (System.nanoTime() - s0) / 1e9;
            // the class histogram runs a full GC first: its total is the live heap
            final String[] histogram = jcmd(app.pid(), "GC.class_histogram").split("\n");
            out.printf(Locale.ROOT, "heap: %,d requests processed in %.1f s with -Xmx512m (%,.0f records/s), no OutOfMemoryError;"
                    + " live heap after a full GC: %s%n", heapRequests, s, 3.0 * heapRequests / s, liveHeap(histogram));
        } finally {
            app.close();
        }
    }

    private void delay(String bootstrap, String registryUrl, SchemaRegistryClient client) throws Exception {
        final String tokens = "live.tokens";
        final String reqs = "live.requests";
        final String stats = "live.window-stats";
        createTopics(bootstrap, tokens, reqs, 2);
        final ChildJvm app = startApp(bootstrap, registryUrl, "bench-live", tokens, reqs, "live");
        final List<Long> delays = new ArrayList<>();
        try (KafkaConsumer<String, WindowStats> c = reader(bootstrap, client, stats)) {
            Thread.sleep(3000);
            final Thread producer = new Thread(() -> produceLive(bootstrap, client, tokens, reqs), "live-producer");
            producer.start();
            final long end = System.nanoTime() + (long) ((liveSeconds + 20) * 1e9);
            while (System.nanoTime() < end) {
                for (ConsumerRecord<String, WindowStats> r : c.poll(Duration.ofMillis(100))) {
                    if (r.value().getIsFinal()) {
                        final long due = r.value().getWindowEndUs().toEpochMilli() * 1000 + 5_000_000L;
                        delays.add(nowUs() - due);
                    }
                }
            }
            producer.join();
        } finally {
            app.close();
        }
        final Histogram h = new Histogram(3_600_000_000L, 3);
        delays.forEach(d -> h.recordValue(Math.max(0, d)));
        out.printf(Locale.ROOT, "final-record delay after window end + grace (live, %d windows): p50 %.0f ms, max %.0f ms%n",
                h.getTotalCount(), h.getValueAtPercentile(50) / 1e3, h.getMaxValue() / 1e3);
    }

    private ChildJvm startApp(String bootstrap, String registryUrl, String appId, String tokens, String reqs, String tag,
                              String... extraArgs) throws IOException {
        final Path state = Files.createTempDirectory("goodput-bench-state");
        final List<String> jvm = new ArrayList<>(List.of("-Xmx512m", "-Xms512m"));
        final String extra = System.getenv("GOODPUT_BENCH_APP_OPTS");
        if (extra != null && !extra.isBlank()) {
            jvm.addAll(List.of(extra.trim().split("\\s+")));
        }
        final List<String> args = new ArrayList<>(List.of(
                "streams", "--bootstrap-server", bootstrap, "--schema-registry", registryUrl, "--application-id", appId,
                "--state-dir", state.toString(), "--contract", contractFile.toString(), "--topic", "tokens=" + tokens,
                "--topic", "requests=" + reqs, "--topic", "verdicts=" + tag + ".verdicts",
                "--topic", "window-stats=" + tag + ".window-stats", "--topic", "dlq=" + tag + ".dlq"));
        args.addAll(List.of(extraArgs));
        return ChildJvm.start(jvm, "dev.goodput.runner.Main", "streams-app ", args.toArray(String[]::new));
    }

    private void createTopics(String bootstrap, String tokens, String reqs, int partitions) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // a recorded log written in one go: each record keeps the time it would have been appended at
            // (its event's own time), or every event, hours old by the broker's clock, would be late
            Topics.createMissing(admin, List.of(
                    Topics.TOKENS.named(tokens).withPartitions(partitions).withConfig("message.timestamp.type", "CreateTime"),
                    Topics.REQUESTS.named(reqs).withPartitions(partitions).withConfig("message.timestamp.type", "CreateTime")),
                    (short) 1);
        }
    }

    /** Synthetic requests at {@code rps} in event time; returns the records written. */
    private long produce(String bootstrap, SchemaRegistryClient client, String tokens, String reqs, long t0, int n,
                         int perRequest, double rps) {
        long count = 0;
        try (KafkaProducer<String, SpecificRecord> p = producer(bootstrap, client)) {
            for (int i = 0; i < n; i++) {
                count += send(p, tokens, reqs, "r" + i, "bench-scenario-" + (i % 4), t0 + (long) (i * 1e6 / rps), perRequest);
            }
            p.flush();
        }
        return count;
    }

    private void produceLive(String bootstrap, SchemaRegistryClient client, String tokens, String reqs) {
        try (KafkaProducer<String, SpecificRecord> p = producer(bootstrap, client)) {
            final long end = System.nanoTime() + (long) (liveSeconds * 1e9);
            int i = 0;
            while (System.nanoTime() < end) {
                // requests that completed just now, 100 per second
                send(p, tokens, reqs, "live" + i, "live-scenario", nowUs() - 300_000, 10);
                i++;
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private int send(KafkaProducer<String, SpecificRecord> p, String tokens, String reqs, String id, String scenario,
                     long intended, int perRequest) {
        final long first = intended + 40_000;
        for (int c = 0; c < perRequest; c++) {
            final long at = first + c * 10_000L;
            p.send(new ProducerRecord<>(tokens, null, at / 1000, id, TokenEvent.newBuilder().setContractId(contract.id())
                    .setRunId("bench").setScenarioId(scenario).setRequestId(id).setChunkIndex(c).setKind(ChunkKind.ANSWER)
                    .setTokens(1).setArrivalTimeUs(Micros.toInstant(at)).setWarmup(false).build()));
        }
        final long last = first + (perRequest - 1) * 10_000L;
        p.send(new ProducerRecord<>(reqs, null, (last + 100) / 1000, id, RequestEvent.newBuilder()
                .setContractId(contract.id()).setRunId("bench").setScenarioId(scenario).setTargetId("sim").setGpuType("H100")
                .setGpuCount(1).setRequestId(id).setAttempt(1).setIntendedSendTimeUs(Micros.toInstant(intended))
                .setActualSendTimeUs(Micros.toInstant(intended + 50)).setFirstChunkTimeUs(Micros.toInstant(first)).setFirstAnswerTimeUs(Micros.toInstant(first))
                .setLastChunkTimeUs(Micros.toInstant(last)).setCompletionTimeUs(Micros.toInstant(last + 100)).setPromptTokens(64)
                .setOutputTokens(perRequest).setOutputTokensSource(TokenCountSource.SERVER_USAGE).setContentChunks(perRequest)
                .setStatus(RequestStatus.OK).setHttpStatus(200).setQualityScore(1.0).setQualityPass(true).setWarmup(false)
                .build()));
        return perRequest + 1;
    }

    private static KafkaProducer<String, SpecificRecord> producer(String bootstrap, SchemaRegistryClient client) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "524288");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(256L << 20));
        return new KafkaProducer<>(p, new StringSerializer(), new AvroSerializer<>(client, false));
    }

    /**
     * Reads the topic from its start to {@code expected} records with a new consumer; returns the
     * records and the rate from the first non-empty poll to the last record (the first poll's
     * records are not counted in the rate).
     */
    private static double[] consumeAll(String bootstrap, String topic, long expected) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "raw-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        long n = 0;
        long first = 0;
        long firstAt = 0;
        long lastAt = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (n < expected && System.nanoTime() < deadline) {
                final int got = c.poll(Duration.ofMillis(100)).count();
                if (got > 0 && firstAt == 0) {
                    firstAt = System.nanoTime();
                    first = got;
                }
                n += got;
                lastAt = System.nanoTime();
            }
        }
        return new double[] {n, (n - first) / ((lastAt - firstAt) / 1e9)};
    }

    /** The share of a consumer group's input counted as warm-up: the warm rate is over the rest. */
    static final double WARMUP_FRACTION = 0.4;

    /** A group's progress to the end of its input: over the whole run and over its warm part. */
    record Progress(double wholeRecords, double wholeSeconds, double warmRecords, double warmSeconds) {
        double wholeRate() {
            return wholeRecords / wholeSeconds;
        }

        double warmRate() {
            return warmRecords / warmSeconds;
        }
    }

    /**
     * Waits until the group's committed offsets reach the end of every input partition; measures
     * from its first progress commit to the end, and from the first commit past the warm-up share.
     */
    private static Progress awaitCaughtUp(String bootstrap, String group, List<String> topics, Duration timeout)
            throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            final Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (var d : admin.describeTopics(topics).allTopicNames().get().values()) {
                d.partitions().forEach(pi -> ends.put(new TopicPartition(d.name(), pi.partition()), OffsetSpec.latest()));
            }
            final var endOffsets = admin.listOffsets(ends).all().get();
            final long total = endOffsets.values().stream().mapToLong(x -> x.offset()).sum();
            final long deadline = System.nanoTime() + timeout.toNanos();
            long firstDone = -1;
            long firstAt = 0;
            long warmDone = -1;
            long warmAt = 0;
            while (System.nanoTime() < deadline) {
                final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                final long now = System.nanoTime();
                boolean caughtUp = true;
                long done = 0;
                for (var e : endOffsets.entrySet()) {
                    final OffsetAndMetadata c = committed.get(e.getKey());
                    done += c == null ? 0 : Math.min(c.offset(), e.getValue().offset());
                    // transaction markers take offsets too: within 2 of the end is the end
                    if (c == null || c.offset() < e.getValue().offset() - 2) {
                        caughtUp = false;
                    }
                }
                if (done > 0 && firstDone < 0) {
                    firstDone = done;
                    firstAt = now;
                }
                if (done >= WARMUP_FRACTION * total && warmDone < 0) {
                    warmDone = done;
                    warmAt = now;
                }
                if (caughtUp) {
                    return new Progress(total - firstDone, (now - firstAt) / 1e9, total - warmDone, (now - warmAt) / 1e9);
                }
                Thread.sleep(20);
            }
            throw new IllegalStateException(group + " did not catch up within " + timeout);
        }
    }

    private static KafkaConsumer<String, WindowStats> reader(String bootstrap, SchemaRegistryClient client, String topic) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "delay-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final KafkaConsumer<String, WindowStats> c = new KafkaConsumer<>(p, new StringDeserializer(),
                new AvroDeserializer<>(client, WindowStats.class));
        c.subscribe(List.of(topic));
        return c;
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        final Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.run").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        final Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command).redirectErrorStream(true).start();
        // (GC.run first, so figures that do not collect by themselves see a collected heap too)
        final String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return text;
    }

    private static String liveHeap(String[] histogram) {
        for (String line : histogram) {
            if (line.strip().startsWith("Total")) {
                final String[] f = line.strip().split("\\s+");
                return String.format(Locale.ROOT, "%.1f MB in %s objects", Long.parseLong(f[2]) / 1e6, f[1]);
            }
        }
        return "unknown";
    }

    private static long windowAligned(Instant i) {
        return (i.toEpochMilli() / 10_000) * 10_000 * 1_000;
    }

    private static long nowUs() {
        final Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

}
