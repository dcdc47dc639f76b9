package dev.goodput.runner;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.goodput.avro.WindowStats;
import dev.goodput.config.ClientConfig;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The windowing a live run's results were computed with, read from its own window records (each
 * carries its start, end and grace), so that a replay repeats it instead of assuming the defaults.
 *
 * @param window the window size
 * @param grace  the grace, or null when the records predate it being recorded
 */
record LiveWindowing(Duration window, Duration grace) {
    private static final Duration LOOK_FOR = Duration.ofSeconds(10);

    /** The windowing of the first window record on the topic, or null when the topic has none. */
    static LiveWindowing read(Properties client, SchemaRegistryClient registry, String windowStatsTopic) {
        final Properties p = ClientConfig.forConsumer(client);
        p.put("enable.auto.commit", "false");
        try (KafkaConsumer<String, WindowStats> c = new KafkaConsumer<>(p, new StringDeserializer(),
                new AvroDeserializer<>(registry, WindowStats.class))) {
            final List<TopicPartition> parts = c.partitionsFor(windowStatsTopic, Duration.ofSeconds(10)).stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            if (parts.isEmpty()) {
                return null;
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            final Map<TopicPartition, Long> ends = c.endOffsets(parts);
            final long deadline = System.nanoTime() + LOOK_FOR.toNanos();
            while (System.nanoTime() < deadline) {
                for (var r : c.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) {
                        return of(r.value());
                    }
                }
                if (parts.stream().allMatch(tp -> c.position(tp) >= ends.get(tp))) {
                    return null;
                }
            }
            return null;
        }
    }

    static LiveWindowing of(WindowStats w) {
        final Duration size = Duration.between(w.getWindowStartUs(), w.getWindowEndUs());
        return new LiveWindowing(size, w.getGraceUs() == null ? null : Duration.ofNanos(w.getGraceUs() * 1_000));
    }
}
