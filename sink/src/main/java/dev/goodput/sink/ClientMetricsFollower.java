package dev.goodput.sink;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.config.ClientConfig;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Feeds {@link ClientMetrics}: every committed verdict once and every final window once, from
 * where this sink's group left off (from the end the first time), so a restart neither recounts
 * history (a counter jump) nor, across instances of one sink, counts a record twice: the group
 * shares the partitions out.
 */
final class ClientMetricsFollower implements AutoCloseable {

    private final PollLoop loop;
    private final CountDownLatch ready = new CountDownLatch(1);

    /** Waits until the follower has its partitions and knows where it reads from; false on timeout. */
    boolean awaitReady(Duration timeout) throws InterruptedException {
        return ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    ClientMetricsFollower(Properties client, SchemaRegistryClient registry, String verdictTopic, String windowTopic,
                          String group, ClientMetrics metrics) {
        final Properties p = new Properties();
        p.putAll(ClientConfig.forConsumer(client));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
        final KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        final var verdicts = new AvroDeserializer<>(registry, RequestVerdict.class);
        final var windows = new AvroDeserializer<>(registry, WindowStats.class);
        consumer.subscribe(List.of(verdictTopic, windowTopic), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> parts) {
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> parts) {
                // resolve where reading starts now, so every record published after this is counted
                parts.forEach(consumer::position);
                ready.countDown();
            }
        });
        this.loop = new PollLoop(consumer, "goodput-client-metrics", r -> {
            if (r.topic().equals(verdictTopic)) {
                metrics.onVerdict(verdicts.deserialize(r.topic(), r.value()));
            } else {
                metrics.onFinalWindow(windows.deserialize(r.topic(), r.value()));
            }
        }, () -> { }, () -> { });
    }

    @Override
    public void close() {
        loop.close();
    }
}
