package dev.goodput.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import dev.goodput.avro.WindowStats;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The Kafka and JVM plumbing bench-streams measures with: producers, raw and committed reads, progress, heap. */
final class BenchIo {
    private BenchIo() {
    }

    /** Records a read_committed consumer sees on {@code topic}, reading until {@code expected} or 5 s of nothing. */
    static long countCommitted(String bootstrap, String topic, long expected) {
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


    static KafkaProducer<String, SpecificRecord> producer(String bootstrap, SchemaRegistryClient client) {
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
     * A raw consumer's pass over a topic: the records it read, its rate from the first non-empty poll
     * to the last record (the first poll's records are not counted in the rate), and over that span
     * the share of the time its thread was on a core and the share it was runnable but waiting for
     * one (NaN where the kernel keeps no schedstat).
     */
    record Pass(double records, double rate, double onCore, double waiting) {

        /** The rate per second on a core of its thread; NaN where that was not measured. */
        double ratePerCore() {
            return perCore(rate, onCore);
        }

        /** For its line: " (its thread on a core 0.93 of the time, waiting for one 0.04)", or nothing. */
        String coreShare() {
            return Double.isNaN(onCore) ? "" : String.format(Locale.ROOT, " (its thread on a core %.2f of the time, waiting"
                    + " for one %.2f)", onCore, waiting);
        }
    }

    /** Reads the topic from its start to {@code expected} records with a new consumer. */
    static Pass consumeAll(String bootstrap, String topic, long expected) {
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
            long[] firstSched = null;
            while (n < expected && System.nanoTime() < deadline) {
                final int got = c.poll(Duration.ofMillis(100)).count();
                if (got > 0 && firstAt == 0) {
                    firstAt = System.nanoTime();
                    firstSched = ThreadCpu.self();
                    first = got;
                }
                n += got;
                lastAt = System.nanoTime();
            }
            // read once the loop is done (microseconds after its last poll), not per poll, which would slow it
            final long[] lastSched = ThreadCpu.self();
            final double span = lastAt - firstAt;
            final boolean sched = firstSched != null && lastSched != null && span > 0;
            return new Pass(n, (n - first) / (span / 1e9), sched ? (lastSched[0] - firstSched[0]) / span : Double.NaN,
                    sched ? (lastSched[1] - firstSched[1]) / span : Double.NaN);
        }
    }

    /**
     * A rate per second on a core: {@code rate} over the cores its reading thread had (its share of the
     * time on one); NaN where those were not measured.
     */
    static double perCore(double rate, double cores) {
        return cores > 0 ? rate / cores : Double.NaN;
    }

    /** The share of a consumer group's input counted as warm-up: the warm rate is over the rest. */
    static final double WARMUP_FRACTION = 0.4;

    /**
     * A group's progress to the end of its input: over the whole run and over its warm part, with
     * what the app's threads used of the machine over the warm part.
     */
    record Progress(double wholeRecords, double wholeSeconds, double warmRecords, double warmSeconds, String warmThreads,
                    double warmStreamCores, Instant warmFrom, Instant warmTo) {
        private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT)
                .withZone(ZoneOffset.UTC);

        /**
         * When the warm part began and ended by this machine's clock, as the bench saw the commits
         * (within a commit interval and a 20 ms poll): what a profile of the app is cut to, so that its
         * window is the one the rate was measured over.
         */
        String warmSpan() {
            return CLOCK.format(warmFrom) + "-" + CLOCK.format(warmTo) + " UTC";
        }

        double wholeRate() {
            return wholeRecords / wholeSeconds;
        }

        double warmRate() {
            return warmRecords / warmSeconds;
        }

        /** The warm rate per second on a core of the app's stream threads; NaN where not measured. */
        double warmRatePerCore() {
            return perCore(warmRate(), warmStreamCores);
        }
    }

    /**
     * Waits until the group's committed offsets reach the end of every input partition; measures
     * from its first progress commit to the end, and from the first commit past the warm-up share.
     * {@code appPid} is the app's JVM (its application id is {@code group}) and {@code brokerPid}
     * the broker's: their threads' CPU is read at both ends of the warm part.
     */
    static Progress awaitCaughtUp(String bootstrap, String group, List<String> topics, Duration timeout, long appPid,
                                  long brokerPid)
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
            ThreadCpu.Snapshot warmCpu = null;
            ThreadCpu.Snapshot warmBroker = null;
            Instant warmFrom = null;
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
                    warmFrom = Instant.now();
                    if (!caughtUp) {
                        warmCpu = ThreadCpu.take(appPid, group);
                        warmBroker = ThreadCpu.take(brokerPid, group);
                    }
                }
                if (caughtUp) {
                    final ThreadCpu.Snapshot appEnd = ThreadCpu.take(appPid, group);
                    final String threads = ThreadCpu.describe(warmCpu, appEnd)
                            + "; the broker " + ThreadCpu.describeTotal(warmBroker, ThreadCpu.take(brokerPid, group));
                    return new Progress(total - firstDone, (now - firstAt) / 1e9, total - warmDone, (now - warmAt) / 1e9,
                            threads, ThreadCpu.streamCores(warmCpu, appEnd), warmFrom, Instant.now());
                }
                Thread.sleep(20);
            }
            throw new IllegalStateException(group + " did not catch up within " + timeout);
        }
    }

    static KafkaConsumer<String, WindowStats> reader(String bootstrap, SchemaRegistryClient client, String topic) {
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

    static String jcmd(long pid, String command) throws IOException, InterruptedException {
        final Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.run").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        final Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command).redirectErrorStream(true).start();
        // (GC.run first, so figures that do not collect by themselves see a collected heap too)
        final String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return text;
    }

    static String liveHeap(String[] histogram) {
        for (String line : histogram) {
            if (line.strip().startsWith("Total")) {
                final String[] f = line.strip().split("\\s+");
                return String.format(Locale.ROOT, "%.1f MB in %s objects", Long.parseLong(f[2]) / 1e6, f[1]);
            }
        }
        return "unknown";
    }

    /** The start of the 10 s window {@code i} falls in, in µs. */
    static long windowAligned(Instant i) {
        return (i.toEpochMilli() / 10_000) * 10_000 * 1_000;
    }

    static long nowUs() {
        final Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    /** The median and range of columns {@code a} and {@code b} of every row taken together, with {@code unit}. */
    static String median(List<double[]> rows, int a, int b, String unit) {
        final double[] all = new double[2 * rows.size()];
        for (int k = 0; k < rows.size(); k++) {
            all[2 * k] = rows.get(k)[a];
            all[2 * k + 1] = rows.get(k)[b];
        }
        Arrays.sort(all);
        final double median = all.length % 2 == 1 ? all[all.length / 2] : (all[all.length / 2 - 1] + all[all.length / 2]) / 2;
        return String.format(Locale.ROOT, "%.2f%s (%.2f-%.2f%s)", median, unit, all[0], all[all.length - 1], unit);
    }
}
