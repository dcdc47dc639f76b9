package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streams-app killed with SIGKILL under steady input and started again at once, with Kafka's
 * default session timeout (45 s): its static group membership puts it back in its old place, so
 * verdicts come again without waiting for the dead member to time out. Prints the figure (time
 * from the restart to the first verdict committed after the kill); asserts only that they come.
 */
class StreamsKillRestartIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    @Test
    void aKilledInstanceStartedAgainProducesVerdictsAgain(@TempDir Path dir) throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final StreamsHarness h = new StreamsHarness(KAFKA.kafka().bootstrapServers(), "kr.tokens", "kr.requests", 2);
            final long t0 = StreamsHarness.recentStartUs();
            final AtomicBoolean producing = new AtomicBoolean(true);
            // a second of event time every 250 ms, for as long as the test runs
            final Thread load = new Thread(() -> {
                for (int s = 0; producing.get() && s < 2_000; s++) {
                    h.produceRun(client, t0, s, s + 1, false);
                    sleep(250);
                }
            }, "kill-restart-load");
            load.start();
            final String app = "kr";
            final Path state = dir.resolve("state");
            final String props = "commit.interval.ms=200\n"; // Kafka's own session timeout: no test shortcut
            final String verdicts = "llm.verdicts-" + app;
            Process p = h.start(app, state, registry.url(), dir, props);
            try (KafkaConsumer<byte[], byte[]> reader = reader()) {
                awaitRecords(reader, verdicts, null);
                p.destroyForcibly().waitFor();
                final long killedAt = System.nanoTime();
                // where the committed verdicts stood at the kill: everything after this was written by the restarted one
                final List<TopicPartition> parts = reader.partitionsFor(verdicts).stream()
                        .map(i -> new TopicPartition(verdicts, i.partition())).toList();
                final var atKill = reader.endOffsets(parts);
                p = h.start(app, state, registry.url(), dir, props);
                final long restartedAt = System.nanoTime();
                awaitRecords(reader, verdicts, atKill);
                final long now = System.nanoTime();
                System.out.printf(Locale.ROOT, "kill-restart: verdicts again %d ms after the restart (%d ms after the SIGKILL)%n",
                        Duration.ofNanos(now - restartedAt).toMillis(), Duration.ofNanos(now - killedAt).toMillis());
            } finally {
                producing.set(false);
                load.join();
                p.destroy();
                p.waitFor();
            }
        }
    }

    private static KafkaConsumer<byte[], byte[]> reader() {
        final Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Waits for a committed record, from the start or from {@code from}; the bound only keeps a broken build from hanging. */
    private static void awaitRecords(KafkaConsumer<byte[], byte[]> reader, String topic,
                                     Map<TopicPartition, Long> from) throws InterruptedException {
        final long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            final var infos = reader.partitionsFor(topic, Duration.ofSeconds(5));
            if (infos != null && !infos.isEmpty()) {
                final List<TopicPartition> parts = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
                reader.assign(parts);
                if (from == null) {
                    reader.seekToBeginning(parts);
                } else {
                    from.forEach(reader::seek);
                }
                while (System.nanoTime() < deadline) {
                    if (!reader.poll(Duration.ofMillis(100)).isEmpty()) {
                        return;
                    }
                }
            }
            Thread.sleep(100);
        }
        assertThat(false).as("committed records on " + topic).isTrue();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
