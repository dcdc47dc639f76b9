package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;

import dev.goodput.avro.WindowStats;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.topics.Topics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streams-app instance killed (SIGKILL) in the middle of a run and started again produces the
 * same final window records, byte for byte, as an instance that ran through: exactly-once output,
 * state restored from the changelogs.
 */
class StreamsRestartIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    private static final int SECONDS = StreamsHarness.SECONDS;
    private static final int WINDOWS = StreamsHarness.WINDOWS;

    @Test
    void aKilledAndRestartedInstanceGivesTheSameFinalRecords(@TempDir Path dir) throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final StreamsHarness h = new StreamsHarness(KAFKA.kafka().bootstrapServers(), Topics.TOKENS.name(),
                    Topics.REQUESTS.name(), 2);
            final long t0 = StreamsHarness.recentStartUs();
            h.produceRun(client, t0, 0, SECONDS / 2, false);

            // killed while the second half of the run is being produced and processed, then started again
            final Process b1 = h.start("run-b", dir.resolve("state-b"), registry.url(), dir, true);
            h.awaitFinals("run-b", client, 2, Duration.ofSeconds(120));
            final Thread second = new Thread(() -> h.produceRun(client, t0, SECONDS / 2, SECONDS, false));
            second.start();
            Thread.sleep(300);
            b1.destroyForcibly().waitFor();
            second.join();
            h.produceRun(client, t0, SECONDS, SECONDS, true);
            final Map<String, byte[]> early = h.readFinals("run-b", client);
            assertThat(early.size()).as("killed mid-run").isLessThan(WINDOWS);
            // uninterrupted, over the same input
            final Map<String, byte[]> expected;
            final Process a = h.start("run-a", dir.resolve("state-a"), registry.url(), dir, false);
            try {
                expected = h.awaitFinals("run-a", client, WINDOWS, Duration.ofSeconds(120));
            } finally {
                a.destroy();
                a.waitFor();
            }
            assertThat(expected).hasSize(WINDOWS);

            final Process b2 = h.start("run-b", dir.resolve("state-b2"), registry.url(), dir, false);
            final Map<String, byte[]> restarted;
            try {
                restarted = h.awaitFinals("run-b", client, expected.size(), Duration.ofSeconds(120));
            } finally {
                b2.destroy();
                b2.waitFor();
            }
            assertThat(restarted.keySet()).isEqualTo(expected.keySet());
            final AvroDeserializer<WindowStats> read = new AvroDeserializer<>(client, WindowStats.class);
            for (String k : expected.keySet()) {
                assertThat(read.deserialize("x", restarted.get(k)).toString()).as(k)
                        .isEqualTo(read.deserialize("x", expected.get(k)).toString());
                assertThat(HexFormat.of().formatHex(restarted.get(k))).as(k)
                        .isEqualTo(HexFormat.of().formatHex(expected.get(k)));
            }
            // exactly one final record per window, even across the crash
            assertThat(h.countFinals("run-b", client)).isEqualTo(expected.size());
        }
    }
}
