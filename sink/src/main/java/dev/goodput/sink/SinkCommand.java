package dev.goodput.sink;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import dev.goodput.avro.GpuPrice;
import dev.goodput.config.ClientConfig;
import dev.goodput.config.Connection;
import dev.goodput.config.Durations;
import dev.goodput.config.Home;
import dev.goodput.config.Settings;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.failure.ConnectionWatch;
import dev.goodput.failure.DeadLetterHandler;
import dev.goodput.failure.FailurePolicy;
import dev.goodput.failure.Lifecycle;
import dev.goodput.registry.RegistryConnection;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code goodput sink}: prices final windows (llm.window-stats + gpu.prices → llm.cost) and serves
 * the metrics endpoint. With {@code --prices FILE} it first publishes that price file.
 */
@Command(name = "sink", mixinStandardHelpOptions = true,
        description = "Price windows with dated GPU prices (llm.cost) and serve Prometheus metrics.")
public final class SinkCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    Connection connection;


    @Option(names = "--streams.config", description = "Kafka Streams / client properties file.")
    Path streamsConfig;

    @Option(names = "--application-id", defaultValue = "goodput-sink", description = "Kafka Streams application id.")
    String applicationId;

    @Option(names = "--prices", description = "Publish this price file (config/prices.yaml) to gpu.prices first.")
    Path pricesFile;

    @Option(names = "--contract", description = "Contract file(s), for each contract's configured peak tokens/s (utilization).")
    List<Path> contracts = List.of(Home.config("contract.yaml"));

    @Option(names = "--metrics-host", defaultValue = "127.0.0.1", description = "Metrics endpoint address (loopback by default).")
    String metricsHost;

    @Option(names = "--metrics-port", defaultValue = "9464", description = "Metrics endpoint port (0: any free port).")
    int metricsPort;

    @Option(names = "--state-dir", defaultValue = ".goodput/sink-state", description = "Local state folder.")
    Path stateDir;

    @Option(names = "--metrics-stale-after", defaultValue = "5m", description = "A scenario's window gauges leave the"
            + " metrics endpoint after this long without a final window (default: ${DEFAULT-VALUE}).")
    String staleAfter;

    @Option(names = "--lag-group", defaultValue = "goodput-streams", description = "Consumer groups whose lag the metrics"
            + " endpoint reports (repeatable; the sink's own is always in; default: ${DEFAULT-VALUE}, the streams-app's).")
    List<String> lagGroups;

    @Option(names = "--otlp-endpoint", description = "Also push the per-request metrics over OTLP (HTTP/protobuf) to this"
            + " collector base URL, e.g. http://localhost:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT, if set; headers from"
            + " OTEL_EXPORTER_OTLP_HEADERS, resource attributes from OTEL_RESOURCE_ATTRIBUTES).")
    String otlpEndpoint;

    @Option(names = "--files", description = "Also append final windows and cost records to JSON-lines and CSV files in this folder.")
    Path filesDir;

    @Option(names = "--settings", description = "Goodput settings file (.properties; keys: rolling, topic.<name>)."
            + " GOODPUT_<KEY> variables override it (GOODPUT_ROLLING=5m,1h), flags override both.")
    Path settingsFile;

    @Option(names = "--rolling", description = "Rolling cost spans (default: " + SinkConfig.DEFAULT_ROLLING + ").")
    String rolling;

    @Option(names = "--topic", description = "Topic name override, NAME=TOPIC for prices, window-stats, cost, dlq (repeatable).")
    Map<String, String> topics = new LinkedHashMap<>();

    @Override
    public Integer call() throws InterruptedException {
        final Duration stale;
        final Map<String, Settings.Value> merged;
        try {
            stale = Durations.positive(staleAfter, "--metrics-stale-after");
            merged = merged(System.getenv());
            SinkConfig.apply(SinkConfig.defaults(Map.of()), merged); // refused at start, before any connection
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        final Map<String, Contract> loaded = ContractLoader.loadAll(contracts);
        final Map<String, Double> peaks = SinkConfig.peaks(loaded.values());
        final List<GpuPrice> prices = pricesFile == null ? List.of() : PricesFile.load(pricesFile);
        final Properties client = connection.kafka(streamsConfig);
        final SchemaRegistryClient registry = RegistryConnection.open(connection, client);
        final SinkConfig config = SinkConfig.apply(SinkConfig.defaults(peaks), merged);
        final Running running = start(client, registry, config, prices, applicationId, stateDir, metricsHost, metricsPort, loaded,
                otlpEndpoint, stale, Stream.concat(lagGroups.stream(), Stream.of(applicationId))
                        .distinct().toList());
        final FileExporter files = filesDir == null ? null : new FileExporter(client, registry, config.windowStatsTopic(), config.costTopic(), filesDir);
        final ConnectionWatch watch = new ConnectionWatch("sink", client, registry);
        return Lifecycle.run("sink", running.streams(), running.failures(), "sink " + applicationId
                + " running; metrics at " + running.metrics().url() + "; Ctrl-C to stop", () -> {
            watch.close();
            if (files != null) {
                files.close();
            }
            running.close();
        });
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

    /** Publishes the prices, then starts the topology and the metrics endpoint (the demo uses this too). */
    public static Running start(Properties client, SchemaRegistryClient registry, SinkConfig config, List<GpuPrice> prices,
                                String applicationId, Path stateDir, String metricsHost, int metricsPort) {
        return start(client, registry, config, prices, applicationId, stateDir, metricsHost, metricsPort, Map.of(), null,
                GoodputMetrics.DEFAULT_STALE_AFTER, List.of(applicationId));
    }

    /**
     * The same, with the contracts whose model and runtime label the per-request metrics (read from
     * the verdicts topic that goes with {@code config}'s window-stats topic).
     */
    public static Running start(Properties client, SchemaRegistryClient registry, SinkConfig config, List<GpuPrice> prices,
                                String applicationId, Path stateDir, String metricsHost, int metricsPort,
                                Map<String, Contract> contracts, String otlpEndpoint,
                                Duration staleAfter, List<String> lagGroups) {
        // an OTLP push when the flag or the standard environment asks for one, checked before anything starts
        final OtlpExport otlp = OtlpExport.configured(otlpEndpoint, System.getenv(), "goodput-sink");
        try (Admin admin = Admin.create(ClientConfig.forAdmin(client))) {
            Topics.createMissing(admin, List.of(Topics.PRICES.named(config.pricesTopic()),
                    Topics.WINDOW_STATS.named(config.windowStatsTopic()), Topics.COST.named(config.costTopic()),
                    Topics.DLQ.named(config.dlqTopic()), Topics.VERDICTS.named(verdictTopic(config.windowStatsTopic()))),
                    client);
        }
        publish(client, registry, config.pricesTopic(), prices);
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
        final KafkaStreams streams = new KafkaStreams(SinkTopology.build(config, new AvroSerdes(registry)), p);
        final FailurePolicy failures = new FailurePolicy("sink",
                FailurePolicy.DEFAULT_MAX_REPLACEMENTS);
        failures.install(streams);
        streams.start();
        final MetricsExporter metrics = new MetricsExporter(client, registry, config.windowStatsTopic(), config.costTopic(),
                verdictTopic(config.windowStatsTopic()), contracts, applicationId, metricsHost, metricsPort, otlp, staleAfter, lagGroups);
        return new Running(streams, failures, metrics);
    }

    /** The sink's settings: a settings file, then GOODPUT_<KEY> variables, then flags. */
    Map<String, Settings.Value> merged(Map<String, String> env) {
        final Map<String, Settings.Value> flags = new LinkedHashMap<>();
        flags.put("rolling", new Settings.Value(rolling, "--rolling"));
        topics.forEach((name, topic) -> {
            if (!SinkConfig.KEYS.contains("topic." + name)) {
                throw new IllegalArgumentException("--topic " + name + "=...: unknown topic (use prices, window-stats, cost, dlq)");
            }
            flags.put("topic." + name, new Settings.Value(topic, "--topic " + name + "=" + topic));
        });
        return Settings.merge(settingsFile, env, flags, SinkConfig.KEYS);
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
    static void publish(Properties client, SchemaRegistryClient registry, String topic, List<GpuPrice> prices) {
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
