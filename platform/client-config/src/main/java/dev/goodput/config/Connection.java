package dev.goodput.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.CommonClientConfigs;
import picocli.CommandLine.Option;

/**
 * The {@code --bootstrap-server} and {@code --schema-registry} options every command shares (a
 * picocli mixin), and the start-up checks behind them: an address that does not answer is one
 * line naming it.
 */
public final class Connection {

    @Option(names = "--bootstrap-server", description = "Kafka bootstrap servers (override the properties file).")
    String bootstrapServer;

    @Option(names = "--schema-registry", defaultValue = "http://127.0.0.1:8081",
            description = "Schema registry URL (default: ${DEFAULT-VALUE}).")
    String registryUrl;

    @Option(names = "--command-config", description = "Kafka client properties file (security.protocol, sasl.*, ssl.*, ...) "
            + "for every client the command makes, as in Kafka's own tools.")
    Path commandConfig;

    @Option(names = "--replication-factor", description = "Replicas of every topic the command creates (default: the cluster's"
            + " default.replication.factor); replication.factor in the properties file, as Kafka Streams reads it for its own.")
    String replicationFactor;

    /**
     * Client properties from the file (the command's own --producer.config / --streams.config when
     * given, else --command-config), GOODPUT_KAFKA_*, then --bootstrap-server; checked to answer.
     */
    public Properties kafka(Path propertiesFile) {
        final Properties p = kafka(propertiesFile != null ? propertiesFile : commandConfig, bootstrapServer);
        if (replicationFactor != null) {
            p.put(Replication.KEY, replicationFactor);
        }
        Replication.factor(p); // a bad value is refused at start, with the fix
        return p;
    }

    /** Whether the user named a cluster (a bootstrap address or a client properties file). */
    public boolean namesCluster() {
        return bootstrapServer != null || commandConfig != null
                || System.getenv().keySet().stream().anyMatch(k -> k.equals(ClientConfig.ENV_PREFIX + "BOOTSTRAP_SERVERS"));
    }

    /** The --schema-registry URL as given (or its default). */
    public String registryUrl() {
        return registryUrl;
    }

    /** The same with another bootstrap address (a local cluster the command started itself). */
    public static Properties kafka(Path propertiesFile, String bootstrap) {
        final Properties p = ClientConfig.merge(propertiesFile, System.getenv(),
                bootstrap == null ? Map.of() : Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092"));
        Preflight.kafka(p, 10_000);
        return p;
    }
}
