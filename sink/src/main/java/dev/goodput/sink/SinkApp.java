package dev.goodput.sink;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.goodput.avro.GpuPrice;
import dev.goodput.config.ClientConfig;
import dev.goodput.contract.Contract;
import dev.goodput.failure.DeadLetterHandler;
import dev.goodput.failure.FailurePolicy;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The sink as a library, beside {@code StreamsApp}: publishes prices, starts the pricing topology and
 * the metrics endpoint, and closes them. {@link SinkCommand} is its command line; the demo, a replay
 * and the tests start it here.
 */
public final class SinkApp {

    private SinkApp() {
    }

    /** A running sink: the pricing topology, its failure policy and the metrics endpoint. */
    public record Running(KafkaStreams streams, FailurePolicy failures, MetricsExporter metrics)
            implements AutoCloseable {
        @Override
        public void close() {
            metrics.close();
            // leaves the group, so a sink started again right away gets its tasks at once
            streams.close(CloseOptions.groupMembershipOperation(
                    CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(30)));
        }
    }

    /**
     * What a sink runs: its settings and prices, its application id and state folder, the metrics
     * endpoint's address, the contracts whose model and runtime label the per-request metrics (read
     * from the verdicts topic that goes with the window-stats topic), an OTLP endpoint (null: the
     * standard environment's, if any), how long a quiet scenario's gauges stay, and the consumer
     * groups whose lag the endpoint reports.
     */
    public record Options(SinkConfig config, List<GpuPrice> prices, String applicationId, Path stateDir, String metricsHost,
                          int metricsPort, Map<String, Contract> contracts, String otlpEndpoint, Duration staleAfter,
                          List<String> lagGroups) {

        /** A sink with its metrics on a free loopback port, no contracts' labels, its own lag only. */
        public static Options of(SinkConfig config, List<GpuPrice> prices, String applicationId, Path stateDir) {
            return new Options(config, prices, applicationId, stateDir, "127.0.0.1", 0, Map.of(), null,
                    GoodputMetrics.DEFAULT_STALE_AFTER, List.of(applicationId));
        }

        public Options metrics(String host, int port) {
            return new Options(config, prices, applicationId, stateDir, host, port, contracts, otlpEndpoint, staleAfter, lagGroups);
        }

        public Options contracts(Map<String, Contract> byId) {
            return new Options(config, prices, applicationId, stateDir, metricsHost, metricsPort, byId, otlpEndpoint, staleAfter,
                    lagGroups);
        }

        public Options otlp(String endpoint) {
            return new Options(config, prices, applicationId, stateDir, metricsHost, metricsPort, contracts, endpoint, staleAfter,
                    lagGroups);
        }

        public Options staleAfter(Duration d) {
            return new Options(config, prices, applicationId, stateDir, metricsHost, metricsPort, contracts, otlpEndpoint, d,
                    lagGroups);
        }

        public Options lagGroups(List<String> groups) {
            return new Options(config, prices, applicationId, stateDir, metricsHost, metricsPort, contracts, otlpEndpoint,
                    staleAfter, groups);
        }
    }

    /** Publishes the prices, then starts the topology and the metrics endpoint. */
    public static Running start(Properties client, SchemaRegistryClient registry, Options o) {
        final SinkConfig config = o.config();
        final String applicationId = o.applicationId();
        final Path stateDir = o.stateDir();
        // an OTLP push when the flag or the standard environment asks for one, checked before anything starts
        final OtlpExport otlp = OtlpExport.configured(o.otlpEndpoint(), System.getenv(), "goodput-sink");
        final int windowPartitions;
        try (Admin admin = Admin.create(ClientConfig.forAdmin(client))) {
            Topics.createMissing(admin, List.of(Topics.PRICES.named(config.pricesTopic()),
                    Topics.WINDOW_STATS.named(config.windowStatsTopic()), Topics.COST.named(config.costTopic()),
                    Topics.DLQ.named(config.dlqTopic()), Topics.VERDICTS.named(verdictTopic(config.windowStatsTopic()))),
                    client);
            // the windows keep the partitioning they were written with; the prices go to as many partitions
            windowPartitions = Topics.partitions(admin, config.windowStatsTopic());
        }
        publish(client, registry, config.pricesTopic(), o.prices());
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "-1");
        p.put("auto.offset.reset", "earliest");
        p.put(StreamsConfig.mainConsumerPrefix("group.instance.id"),
                ClientConfig.staticMemberId(applicationId, stateDir));
        p.putAll(client);
        DeadLetterHandler.properties(config.dlqTopic()).forEach(p::putIfAbsent);
        final KafkaStreams streams = new KafkaStreams(SinkTopology.build(config, new AvroSerdes(registry), windowPartitions), p);
        final FailurePolicy failures = new FailurePolicy("sink",
                FailurePolicy.DEFAULT_MAX_REPLACEMENTS);
        failures.install(streams);
        streams.start();
        final MetricsExporter metrics = new MetricsExporter(client, registry, config.windowStatsTopic(), config.costTopic(),
                verdictTopic(config.windowStatsTopic()), o.contracts(), applicationId, o.metricsHost(), o.metricsPort(), otlp,
                o.staleAfter(), o.lagGroups());
        return new Running(streams, failures, metrics);
    }

    /** The verdicts topic beside a window-stats topic: a replay's carry the same suffix ({@code .<replay id>}). */
    static String verdictTopic(String windowStatsTopic) {
        final String base = Topics.WINDOW_STATS.name();
        return windowStatsTopic.startsWith(base) ? Topics.VERDICTS.name() + windowStatsTopic.substring(base.length())
                : Topics.VERDICTS.name();
    }

    /**
     * A price version's key on the compacted gpu.prices topic: the price key and the version's
     * start, so that compaction keeps every version, not just the latest.
     */
    static String versionKey(GpuPrice p) {
        return p.getPriceKey() + "@" + p.getEffectiveFromUs();
    }

    /** Each price version keyed by {@link #versionKey}, with its effective date as the record time. */
    public static void publish(Properties client, SchemaRegistryClient registry, String topic, List<GpuPrice> prices) {
        if (prices.isEmpty()) {
            return;
        }
        final Properties p = ClientConfig.forProducer(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, GpuPrice> producer = new KafkaProducer<>(p, new StringSerializer(),
                new AvroSerializer<>(registry, false))) {
            for (GpuPrice price : prices) {
                producer.send(new ProducerRecord<>(topic, null, price.getEffectiveFromUs().toEpochMilli(), versionKey(price), price));
            }
            producer.flush();
        }
    }
}
