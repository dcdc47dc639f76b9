package dev.goodput.runner;

import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import dev.goodput.config.Connection;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code goodput registry}: the Confluent-compatible schema registry as its own process. Its
 * schemas live in a compacted topic of the cluster, so a restarted registry serves the same ids.
 */
@Command(name = "registry", mixinStandardHelpOptions = true,
        description = "Run the Confluent-compatible schema registry, its schemas kept on Kafka, until Ctrl-C.")
final class RegistryCommand implements Callable<Integer> {

    @Mixin
    Connection connection;

    @Option(names = "--port", defaultValue = "8081", description = "HTTP port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--schemas-topic", defaultValue = Topics.SCHEMAS, description = "Compacted topic holding the schemas (default: ${DEFAULT-VALUE}).")
    String schemasTopic;

    @Override
    public Integer call() throws InterruptedException {
        if (port < 0 || port > 65_535) {
            throw new StartupException("--port " + port + ": a port from 1 to 65535 (0: any free port)", Main.EXIT_REFUSED, null);
        }
        final Properties client = connection.kafka(null);
        final InProcessSchemaRegistry registry;
        try {
            registry = InProcessSchemaRegistry.onKafka(client, schemasTopic, port);
        } catch (RuntimeException e) {
            throw new StartupException("cannot start the schema registry on port " + port + ": "
                    + StartupException.rootMessage(e), Main.EXIT_FAILED, e);
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            registry.close();
            stopped.countDown();
        }, "goodput-registry-shutdown"));
        System.out.println("schema registry ready at " + registry.url() + " (schemas on " + schemasTopic + " at "
                + client.getProperty("bootstrap.servers") + "); Ctrl-C to stop");
        System.out.flush();
        stopped.await();
        return 0;
    }
}
