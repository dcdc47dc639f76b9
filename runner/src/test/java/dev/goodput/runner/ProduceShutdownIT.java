package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenEvent;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.records.TokenRuns;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.report.TopicSnapshot;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.CommonClientConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ctrl-C on {@code goodput produce} in the middle of a run: it stops dispatching, ends the requests
 * in flight, and every event reaches the broker. The request events equal the generator's own
 * tally, and each successful request has all its token events.
 */
class ProduceShutdownIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    @Test
    void ctrlCLosesNoEvent() throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final String out;
            try (ChildCli produce = ChildCli.start("produce", "--simulate", "--bootstrap-server", KAFKA.kafka().bootstrapServers(),
                    "--schema-registry", registry.url(), "--contract", "../config/contract.yaml", "--scenario", "p64-o32-r40-cold",
                    "--duration", "120", "--run-id", "ctrl-c")) {
                produce.awaitLine("scenario p64-o32-r40-cold:");
                Thread.sleep(8_000);
                out = produce.interruptAndWait();
            }
            final Matcher done = Pattern.compile("scenario p64-o32-r40-cold done: (\\d+) requests").matcher(out);
            assertThat(done.find()).as(out).isTrue();
            final long tally = Long.parseLong(done.group(1));
            // 120 s at 40 req/s schedules 4,800 requests: fewer means Ctrl-C ended the run (no bound on how many
            // a busy machine got through in the 8 s before it)
            assertThat(tally).as("stopped before the 120 s run would end").isBetween(1L, 4_799L);

            final Properties client = new Properties();
            client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
            final SchemaRegistryClient sr = new SchemaRegistryClient(registry.url());
            final List<RequestEvent> requests = TopicSnapshot.read(client, Topics.REQUESTS.name(),
                    new AvroDeserializer<>(sr, RequestEvent.class)).stream().filter(e -> e.getRunId().equals("ctrl-c")).toList();
            final Map<String, Integer> tokens = new HashMap<>();
            for (TokenEvent t : TopicSnapshot.read(client, Topics.TOKENS.name(), new AvroDeserializer<>(sr, TokenEvent.class))) {
                tokens.merge(t.getRequestId(), TokenRuns.size(t), Integer::sum);
            }
            assertThat(requests).hasSize((int) tally);
            for (RequestEvent e : requests) {
                assertThat(tokens.getOrDefault(e.getRequestId(), 0)).as(e.getRequestId()).isEqualTo(e.getContentChunks());
            }
        }
    }
}
