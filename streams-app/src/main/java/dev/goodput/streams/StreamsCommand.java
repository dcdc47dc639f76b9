package dev.goodput.streams;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;

import dev.goodput.config.Connection;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.failure.ConnectionWatch;
import dev.goodput.failure.FailurePolicy;
import dev.goodput.failure.Lifecycle;
import dev.goodput.registry.RegistryConnection;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerdes;
import org.apache.kafka.streams.KafkaStreams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code goodput streams}: the streams-app. Reads llm.tokens and llm.requests, writes llm.verdicts,
 * llm.window-stats and llm.dlq. Several instances with the same --application-id share the work.
 */
@Command(name = "streams", mixinStandardHelpOptions = true,
        description = "Run the streams-app: per-request verdicts and windowed percentiles and goodput.")
public final class StreamsCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    Connection connection;

    @CommandLine.Mixin
    SettingsOptions settings;


    @Option(names = "--streams.config", description = "Kafka Streams / client properties file.")
    Path streamsConfig;

    @Option(names = "--application-id", defaultValue = "goodput-streams", description = "Kafka Streams application id.")
    String applicationId;

    @Option(names = "--contract", description = "Contract file(s) whose events this app accepts (repeatable; default config/contract.yaml).")
    List<Path> contracts = new ArrayList<>();

    @Option(names = "--state-dir", defaultValue = ".goodput/streams-state", description = "Local state folder.")
    Path stateDir;

    @Option(names = "--reset", description = "Wipe this instance's local state before starting (cleanUp()).")
    boolean reset;


    @Option(names = "--max-thread-replacements", defaultValue = "3", description = "Failed stream threads replaced "
            + "before the app stops with the cause and exit code 1 (default: ${DEFAULT-VALUE}).")
    int maxThreadReplacements;

    @Override
    public Integer call() throws InterruptedException {
        if (maxThreadReplacements < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max-thread-replacements "
                    + maxThreadReplacements + ": 0 or more");
        }
        // the settings are checked before anything connects: a bad value is refused at start, exit 2
        final StreamsSettings given = config();
        final Properties client = connection.kafka(streamsConfig);
        final StreamsSettings config = settings.merged(System.getenv()).containsKey("grace") ? given
                : StreamsApp.withFailoverGrace(given, client);
        final SchemaRegistryClient registry = RegistryConnection.open(connection, client);
        final int partitions = StreamsApp.prepareTopics(client, config);
        final FailurePolicy failures = new FailurePolicy("streams-app", maxThreadReplacements);
        final KafkaStreams streams = StreamsApp.start(config.withUpstreamPartitions(partitions), new AvroSerdes(registry),
                StreamsApp.streamsProperties(client, applicationId, stateDir), reset, failures);
        final ConnectionWatch watch = new ConnectionWatch("streams-app", client, registry);
        return Lifecycle.run("streams-app", streams, failures, "streams-app " + applicationId + " running ("
                + config.window() + " windows, grace " + config.grace() + ", a request without its request event held "
                + config.orphanExpiry() + " of log time or to its run's end); Ctrl-C to stop", () -> {
            watch.close();
            StreamsApp.close(streams);
        });
    }

    StreamsSettings config() {
        final Map<String, Contract> byId = ContractLoader.loadAll(contracts);
        try {
            return StreamsSettings.apply(StreamsSettings.defaults(byId), settings.merged(System.getenv()));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
