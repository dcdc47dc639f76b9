package dev.goodput.report;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import dev.goodput.config.ClientConfig;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How many records went to a dead-letter topic, by reason: what a run lost, said next to what it
 * measured. Counts from given offsets (where the topic stood when the run began) to its end.
 */
public final class DeadLetterCounts {

    private DeadLetterCounts() {
    }

    /** The end offset of each partition of {@code topic} now (empty when the topic does not exist). */
    public static Map<Integer, Long> ends(Properties client, String topic) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(client)) {
            final var info = c.listTopics(Duration.ofSeconds(30)).get(topic);
            if (info == null) {
                return Map.of();
            }
            final Map<Integer, Long> out = new HashMap<>();
            c.endOffsets(info.stream().map(i -> new TopicPartition(topic, i.partition())).toList())
                    .forEach((tp, o) -> out.put(tp.partition(), o));
            return out;
        }
    }

    /** Records on {@code topic} from {@code from} (by partition; 0 where absent) to its end, by their reason header. */
    public static Map<String, Long> since(Properties client, String topic, Map<Integer, Long> from) {
        final Map<String, Long> counts = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer(client)) {
            final var info = c.listTopics(Duration.ofSeconds(30)).get(topic);
            if (info == null) {
                return counts;
            }
            final List<TopicPartition> parts = info.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            parts.forEach(tp -> c.seek(tp, from.getOrDefault(tp.partition(), 0L)));
            final Map<TopicPartition, Long> ends = c.endOffsets(parts);
            final long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
                        final String reason = DeadLetters.header(r.headers(), DeadLetters.REASON);
                        counts.merge(reason == null ? "unknown" : reason, 1L, Long::sum);
                    }
                }
            }
        }
        return counts;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(Properties client) {
        final Properties p = ClientConfig.forConsumer(client);
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
