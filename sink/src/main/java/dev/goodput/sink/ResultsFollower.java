package dev.goodput.sink;

import java.util.List;
import java.util.Properties;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.WindowStats;
import dev.goodput.config.ReaderProps;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Follows the window-stats and cost topics (committed records only) on a thread of its own and
 * hands each record to a listener, decoded. What the metrics endpoint, the file export and the
 * demo's live table share. A record that cannot be decoded is skipped: the DLQ upstream has it.
 */
public final class ResultsFollower implements AutoCloseable {

    /** What a follower does with the records; called on the follower's thread only. */
    public interface Listener {
        void onWindow(WindowStats w);

        void onCost(CostRecord c);

        /** After the records of one poll (to flush what was written). */
        default void afterPoll() {
        }

        /** Once, when the follower stops. */
        default void onStop() {
        }
    }

    private final PollLoop loop;

    /**
     * Starts following; {@code name} names the thread and the consumer group prefix, and
     * {@code fromNow} starts at the end of the topics instead of their beginning.
     */
    public ResultsFollower(Properties client, SchemaRegistryClient registry, String windowTopic, String costTopic, String name,
                           boolean fromNow, Listener listener) {
        final AvroDeserializer<WindowStats> windows = new AvroDeserializer<>(registry, WindowStats.class);
        final AvroDeserializer<CostRecord> costs = new AvroDeserializer<>(registry, CostRecord.class);
        final Properties p = ReaderProps.committedFromStart(client, name);
        if (fromNow) {
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        }
        final KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(windowTopic, costTopic));
        this.loop = new PollLoop(consumer, name, r -> {
            if (r.topic().equals(windowTopic)) {
                final WindowStats w = windows.deserialize(r.topic(), r.value());
                if (w != null) {
                    listener.onWindow(w);
                }
            } else {
                final CostRecord c = costs.deserialize(r.topic(), r.value());
                if (c != null) {
                    listener.onCost(c);
                }
            }
        }, listener::afterPoll, listener::onStop);
    }

    @Override
    public void close() {
        loop.close();
    }
}
