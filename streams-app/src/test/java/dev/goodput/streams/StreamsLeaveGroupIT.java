package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerdes;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An instance closed with {@link StreamsApp#close} leaves the consumer group, so one started again
 * right away (the demo run twice) gets its tasks at once instead of after the old member's 45 s
 * session timeout.
 */
class StreamsLeaveGroupIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    private static long millisToRunning(KafkaStreams s) throws InterruptedException {
        final long start = System.nanoTime();
        while (s.state() != KafkaStreams.State.RUNNING) {
            assertThat(s.state()).isIn(KafkaStreams.State.CREATED, KafkaStreams.State.REBALANCING);
            assertThat(System.nanoTime() - start).as("reached RUNNING within 90 s").isLessThan(90_000_000_000L);
            Thread.sleep(50);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Test
    void aRestartedInstanceGetsItsTasksWithoutWaitingForTheOldSession(@TempDir Path dir) throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final AvroSerdes serdes = new AvroSerdes(new SchemaRegistryClient(registry.url()));
            final Properties client = new Properties();
            client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
            final StreamsConfig c = StreamsConfig.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT));
            final StreamsConfig config = c.withUpstreamPartitions(StreamsApp.prepareTopics(client, c));

            final KafkaStreams first = StreamsApp.start(config, serdes, StreamsApp.streamsProperties(client, "leave",
                    dir.resolve("a")), false);
            millisToRunning(first);
            StreamsApp.close(first);

            final KafkaStreams second = StreamsApp.start(config, serdes, StreamsApp.streamsProperties(client, "leave",
                    dir.resolve("b")), false);
            try {
                // without leaving, the coordinator waits out the first member's 45 s session
                assertThat(millisToRunning(second)).isLessThan(20_000);
            } finally {
                StreamsApp.close(second);
            }
        }
    }
}
