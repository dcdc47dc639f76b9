package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RunSummary;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.report.TopicSnapshot;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.CommonClientConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code goodput produce --continuous}: one scenario until Ctrl-C, its run id rolling over, each span
 * with its own run summary and requests, warm-up only in the first.
 */
class ContinuousIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    @Test
    void theRunIdRollsOverAndEachSpanIsARunOfItsOwn() throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final String out;
            try (ChildCli produce = ChildCli.start("produce", "--simulate", "--bootstrap-server", KAFKA.kafka().bootstrapServers(),
                    "--schema-registry", registry.url(), "--contract", "../config/contract.yaml", "--scenario", "p64-o8-r20-cold",
                    "--continuous", "--roll-every", "2s", "--run-id", "cont", "--close-windows-after", "0")) {
                produce.awaitLine("run cont-0003 ");
                out = produce.interruptAndWait();
            }
            assertThat(out).contains("run cont-0001 (rolls over every 2.0 s").contains("run cont-0002 ");
            final Properties client = new Properties();
            client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
            final SchemaRegistryClient sr = new SchemaRegistryClient(registry.url());
            final List<RunSummary> runs = TopicSnapshot.read(client, Topics.RUNS.name(), new AvroDeserializer<>(sr, RunSummary.class));
            final Set<String> ids = runs.stream().map(RunSummary::getRunId).collect(Collectors.toSet());
            assertThat(ids).contains("cont-0001", "cont-0002", "cont-0003").allMatch(id -> id.matches("cont-\\d{4}"));
            final List<RequestEvent> requests = TopicSnapshot.read(client, Topics.REQUESTS.name(),
                    new AvroDeserializer<>(sr, RequestEvent.class));
            assertThat(requests).isNotEmpty().allMatch(e -> ids.contains(e.getRunId()));
            // every span's summary counts exactly the requests published under its id
            for (RunSummary r : runs) {
                assertThat(requests.stream().filter(e -> e.getRunId().equals(r.getRunId())).count()).as(r.getRunId())
                        .isEqualTo(r.getRequests());
            }
            // warm-up belongs to the first span only
            assertThat(requests.stream().filter(RequestEvent::getWarmup).map(RequestEvent::getRunId).distinct().toList())
                    .containsExactly("cont-0001");
            assertThat(runs.stream().filter(r -> !r.getRunId().equals("cont-0001"))).allMatch(r -> r.getWarmupRequests() == 0);
        }
    }
}
