package dev.goodput.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import dev.goodput.registry.SchemaRegistryClient;
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

    /** Client properties from the file, GOODPUT_KAFKA_*, then --bootstrap-server; checked to answer. */
    public Properties kafka(Path propertiesFile) {
        return kafka(propertiesFile, bootstrapServer);
    }

    /** The same with another bootstrap address (a local cluster the command started itself). */
    public static Properties kafka(Path propertiesFile, String bootstrap) {
        final Properties p = ClientConfig.merge(propertiesFile, System.getenv(),
                bootstrap == null ? Map.of() : Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092"));
        Preflight.kafka(p, 10_000);
        return p;
    }

    /** A client for --schema-registry, checked to answer. */
    public SchemaRegistryClient registry() {
        return registry(registryUrl);
    }

    public static SchemaRegistryClient registry(String url) {
        final SchemaRegistryClient client = new SchemaRegistryClient(url);
        Preflight.registry(client);
        return client;
    }
}
