package dev.goodput.runner;

import java.nio.file.Path;
import java.util.Properties;

import dev.goodput.config.Connection;
import dev.goodput.registry.RegistryConnection;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.topics.Topics;

/**
 * Where a command that reads a past run finds it: the embedded broker and registry started on a
 * kept local data folder, or the cluster that the connection flags name.
 */
final class ReadTarget implements AutoCloseable {

    private final LocalCluster local;
    private final Properties client;
    private final SchemaRegistryClient registry;
    private final String flags;

    private ReadTarget(LocalCluster local, Properties client, SchemaRegistryClient registry, String flags) {
        this.local = local;
        this.client = client;
        this.registry = registry;
        this.flags = flags;
    }

    /** Opens the data folder when one is given, else uses the connection (with an optional client properties file). */
    static ReadTarget open(Path dataDir, Connection connection, Path clientConfig) {
        if (dataDir != null) {
            StartupException.requireLocalBroker("--data-dir");
            final LocalCluster local = LocalCluster.start(dataDir, false, 0, 0, Topics.ALL);
            return new ReadTarget(local, Connection.kafka(clientConfig, local.bootstrapServers()),
                    RegistryConnection.open(local.registryUrl()), "--data-dir " + dataDir);
        }
        final Properties client = connection.kafka(clientConfig);
        final SchemaRegistryClient registry = RegistryConnection.open(connection, client);
        return new ReadTarget(null, client, registry, "--bootstrap-server " + client.getProperty("bootstrap.servers")
                + " --schema-registry " + registry.baseUrl());
    }

    Properties client() {
        return client;
    }

    SchemaRegistryClient registry() {
        return registry;
    }

    /** The flags that reach the same place again, for printed commands. */
    String flags() {
        return flags;
    }

    @Override
    public void close() {
        if (local != null) {
            local.close();
        }
    }
}
