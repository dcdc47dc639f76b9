package dev.goodput.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.topics.Topic;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;

/**
 * The infrastructure of a local run: a real KRaft broker whose data folder is kept between runs
 * (so earlier runs stay replayable), a schema registry storing its schemas on that broker (so ids
 * survive too), and the pipeline's topics with their partition counts and cleanup policies.
 */
final class LocalCluster implements AutoCloseable {

    private final EmbeddedKafka kafka;
    private final InProcessSchemaRegistry registry;
    private final Set<String> createdTopics;

    private LocalCluster(EmbeddedKafka kafka, InProcessSchemaRegistry registry, Set<String> createdTopics) {
        this.kafka = kafka;
        this.registry = registry;
        this.createdTopics = createdTopics;
    }

    static LocalCluster start(Path dataDir, boolean fresh, int kafkaPort, int registryPort, List<Topic<?>> topics) {
        if (fresh) {
            deleteFolder(dataDir);
        }
        final EmbeddedKafka kafka;
        try {
            kafka = EmbeddedKafka.startPersistent(dataDir.resolve("kafka"), kafkaPort, Map.of());
        } catch (RuntimeException e) {
            throw new StartupException("cannot start the local Kafka broker (data " + dataDir + ", port "
                    + (kafkaPort == 0 ? "any" : kafkaPort) + "): " + StartupException.rootMessage(e)
                    + " (try --fresh to start from an empty data folder)", Main.EXIT_FAILED, e);
        }
        try {
            final InProcessSchemaRegistry registry = InProcessSchemaRegistry.onKafka(kafka.bootstrapServers(),
                    Topics.SCHEMAS, registryPort);
            final Set<String> created;
            try (Admin admin = kafka.admin()) {
                created = Topics.createMissing(admin, topics, (short) 1);
            }
            return new LocalCluster(kafka, registry, created);
        } catch (RuntimeException e) {
            kafka.close();
            throw new StartupException("cannot start the local schema registry on port " + registryPort + ": "
                    + StartupException.rootMessage(e), Main.EXIT_FAILED, e);
        }
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    String registryUrl() {
        return registry.url();
    }

    EmbeddedKafka kafka() {
        return kafka;
    }

    Set<String> createdTopics() {
        return createdTopics;
    }

    @Override
    public void close() {
        registry.close();
        kafka.close();
    }

    private static void deleteFolder(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new StartupException("cannot remove " + dir + ": " + e.getMessage(), Main.EXIT_FAILED, e);
        }
    }

}
