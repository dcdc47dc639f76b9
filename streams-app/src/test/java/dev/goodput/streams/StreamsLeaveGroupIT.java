package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerdes;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
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

    /** Waits for RUNNING; the bound only keeps a broken build from hanging, it is not what is tested. */
    private static void awaitRunning(KafkaStreams s) throws InterruptedException {
        final long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (s.state() != KafkaStreams.State.RUNNING) {
            assertThat(s.state()).isIn(KafkaStreams.State.CREATED, KafkaStreams.State.REBALANCING);
            assertThat(System.nanoTime()).as("reached RUNNING").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static Collection<MemberDescription> members(String group)
            throws Exception {
        try (Admin admin = KAFKA.kafka().admin()) {
            return admin.describeConsumerGroups(List.of(group)).all().get().get(group).members();
        }
    }

    @Test
    void aRestartedInstanceGetsItsTasksWithoutWaitingForTheOldSession(@TempDir Path dir) throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final AvroSerdes serdes = new AvroSerdes(new SchemaRegistryClient(registry.url()));
            final Properties client = new Properties();
            client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
            final StreamsSettings c = StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT));
            final StreamsSettings config = c.withUpstreamPartitions(StreamsApp.prepareTopics(client, c));

            final KafkaStreams first = StreamsApp.start(config, serdes, StreamsApp.streamsProperties(client, "leave",
                    dir.resolve("a")), false);
            awaitRunning(first);
            assertThat(members("leave")).hasSize(1);
            StreamsApp.close(first);
            // left, rather than waiting to be timed out: the coordinator holds no member for it (a member that
            // did not leave stays listed until its 45 s session expires)
            assertThat(members("leave")).isEmpty();

            final KafkaStreams second = StreamsApp.start(config, serdes, StreamsApp.streamsProperties(client, "leave",
                    dir.resolve("b")), false);
            try {
                awaitRunning(second);
                assertThat(members("leave")).hasSize(1);
            } finally {
                StreamsApp.close(second);
            }
        }
    }
}
