package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;

import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two streams-app instances with one application id sharing a 4-partition input produce the same
 * final window records, byte for byte, as one instance alone: per-partition assembly and windows
 * closed on the slowest partition do not depend on how tasks are spread.
 */
class StreamsScaleOutIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    @Test
    void twoInstancesGiveTheSameFinalRecordsAsOne(@TempDir Path dir) throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final StreamsHarness h = new StreamsHarness(KAFKA.kafka().bootstrapServers(), "scale.tokens", "scale.requests", 4);
            h.produceRun(client, StreamsHarness.recentStartUs(), 0, StreamsHarness.SECONDS, true);

            final Map<String, byte[]> one;
            final Process single = h.start("one", dir.resolve("one"), registry.url(), dir, false);
            try {
                one = h.awaitFinals("one", client, StreamsHarness.WINDOWS, Duration.ofSeconds(120));
            } finally {
                single.destroy();
                single.waitFor();
            }
            assertThat(one).hasSize(StreamsHarness.WINDOWS);

            final Map<String, byte[]> two;
            final Process first = h.start("two", dir.resolve("two-a"), registry.url(), dir, false);
            final Process second = h.start("two", dir.resolve("two-b"), registry.url(), dir, false);
            try {
                two = h.awaitFinals("two", client, StreamsHarness.WINDOWS, Duration.ofSeconds(180));
            } finally {
                first.destroy();
                second.destroy();
                first.waitFor();
                second.waitFor();
            }
            assertThat(two.keySet()).isEqualTo(one.keySet());
            for (String k : one.keySet()) {
                assertThat(HexFormat.of().formatHex(two.get(k))).as(k).isEqualTo(HexFormat.of().formatHex(one.get(k)));
            }
            assertThat(h.countFinals("two", client)).isEqualTo(StreamsHarness.WINDOWS);
        }
    }
}
