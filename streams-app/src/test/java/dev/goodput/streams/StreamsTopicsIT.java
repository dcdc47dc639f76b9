package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import dev.goodput.config.ConfigException;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the streams-app finds and creates on a real broker before it starts. */
class StreamsTopicsIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static Properties client() {
        final Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
        return p;
    }

    private static StreamsSettings settings(String prefix) {
        return StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT)).withTopics(
                new StreamsSettings.TopicNames(prefix + ".tokens", prefix + ".requests", prefix + ".verdicts",
                        prefix + ".window-stats", prefix + ".dlq"));
    }

    private static Map<String, Integer> partitions(List<String> topics) throws Exception {
        try (Admin admin = KAFKA.kafka().admin()) {
            return admin.describeTopics(topics).allTopicNames().get().entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().partitions().size()));
        }
    }

    @Test
    void missingOutputTopicsArePartitionedAsTheInputs() throws Exception {
        try (Admin admin = KAFKA.kafka().admin()) {
            Topics.createMissing(admin, List.of(Topics.TOKENS.named("two.tokens").withPartitions(2),
                    Topics.REQUESTS.named("two.requests").withPartitions(2)), (short) 1);
        }

        assertThat(StreamsApp.prepareTopics(client(), settings("two"))).isEqualTo(2);

        assertThat(partitions(List.of("two.verdicts", "two.window-stats", "two.dlq")))
                .isEqualTo(Map.of("two.verdicts", 2, "two.window-stats", 2, "two.dlq", 1));
    }

    @Test
    void missingInputTopicsAreCreatedWithTheDefaultLayout() throws Exception {
        assertThat(StreamsApp.prepareTopics(client(), settings("fresh"))).isEqualTo(Topics.DEFAULT_PARTITIONS);

        assertThat(partitions(List.of("fresh.tokens", "fresh.verdicts", "fresh.window-stats")))
                .isEqualTo(Map.of("fresh.tokens", Topics.DEFAULT_PARTITIONS, "fresh.verdicts", Topics.DEFAULT_PARTITIONS,
                        "fresh.window-stats", Topics.DEFAULT_PARTITIONS));
    }

    @Test
    void inputsThatAreNotCoPartitionedAreRefusedBeforeAnyOutputIsCreated() throws Exception {
        try (Admin admin = KAFKA.kafka().admin()) {
            Topics.createMissing(admin, List.of(Topics.TOKENS.named("uneven.tokens").withPartitions(2),
                    Topics.REQUESTS.named("uneven.requests").withPartitions(3)), (short) 1);
        }

        assertThatThrownBy(() -> StreamsApp.prepareTopics(client(), settings("uneven")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("must be equal");
        try (Admin admin = KAFKA.kafka().admin()) {
            assertThat(admin.listTopics().names().get()).doesNotContain("uneven.verdicts", "uneven.window-stats");
        }
    }
}
