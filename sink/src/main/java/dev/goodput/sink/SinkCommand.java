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
import dev.goodput.config.Connection;
import dev.goodput.config.Durations;
import dev.goodput.config.Home;
import dev.goodput.config.Settings;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.failure.ConnectionWatch;
import dev.goodput.failure.Lifecycle;
import dev.goodput.registry.RegistryConnection;
import dev.goodput.registry.SchemaRegistryClient;
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
        final SinkApp.Running running = SinkApp.start(client, registry, SinkApp.Options.of(config, prices, applicationId, stateDir)
                .metrics(metricsHost, metricsPort).contracts(loaded).otlp(otlpEndpoint).staleAfter(stale)
                .lagGroups(Stream.concat(lagGroups.stream(), Stream.of(applicationId)).distinct().toList()));
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
}
