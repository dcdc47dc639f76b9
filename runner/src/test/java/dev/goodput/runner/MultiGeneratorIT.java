package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RunSummary;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.contract.load.Corpus;
import dev.goodput.definitions.Conventions;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.report.ConventionReplay;
import dev.goodput.report.TopicSnapshot;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.CommonClientConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two generator processes publish one run together against one server: every request of both is
 * on the topics under the run id, none collides with another, each generator has its own run
 * summary, and a recomputation of the run counts both.
 */
class MultiGeneratorIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    private static final Path CONTRACT = Path.of("../config/contract.yaml");

    @Test
    void twoGeneratorsPublishOneRun() throws Exception {
        final Contract contract = ContractLoader.load(CONTRACT);
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0);
             SimServer sim = new SimServer(SimConfig.defaults(), Corpus.load(ContractLoader.verifyCorpus(contract, CONTRACT.getParent())), 0)) {
            final String[] common = {"produce", "--target", sim.baseUrl(), "--bootstrap-server", KAFKA.kafka().bootstrapServers(),
                "--schema-registry", registry.url(), "--contract", CONTRACT.toString(), "--scenario", "p64-o16-r20-cold",
                "--duration", "4", "--run-id", "shared"};
            try (ChildCli a = ChildCli.start(with(common, "--generator-id", "gen-a"));
                 ChildCli b = ChildCli.start(with(common, "--generator-id", "gen-b"))) {
                assertThat(a.waitForExit()).as(a.output()).isZero();
                assertThat(b.waitForExit()).as(b.output()).isZero();
                final long tally = tally(a.output()) + tally(b.output());

                final Properties client = new Properties();
                client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
                final SchemaRegistryClient sr = new SchemaRegistryClient(registry.url());
                final List<RequestEvent> requests = TopicSnapshot.read(client, Topics.REQUESTS.name(),
                        new AvroDeserializer<>(sr, RequestEvent.class)).stream().filter(e -> e.getRunId().equals("shared")).toList();
                assertThat(requests).hasSize((int) tally);
                assertThat(requests.stream().map(RequestEvent::getRequestId).distinct().count()).isEqualTo(tally);
                assertThat(requests.stream().map(e -> e.getRequestId().substring(0, 5)).distinct()).containsExactlyInAnyOrder("gen-a", "gen-b");
                final List<RunSummary> runs = TopicSnapshot.read(client, Topics.RUNS.name(), new AvroDeserializer<>(sr, RunSummary.class))
                        .stream().filter(r -> r.getRunId().equals("shared")).toList();
                assertThat(runs).extracting(RunSummary::getGeneratorId).containsExactlyInAnyOrder("gen-a", "gen-b");

                // the run recomputed from its raw topics holds both generators' measured requests
                final long measured = requests.stream().filter(e -> !e.getWarmup()).count();
                final var scenarios = ConventionReplay.load(client, sr, "shared", Long.MIN_VALUE, Long.MAX_VALUE, contract.objectives(), null);
                assertThat(scenarios).singleElement().satisfies(s ->
                        assertThat(s.results().get(Conventions.Tool.GOODPUT).requests()).isEqualTo(measured));
            }
        }
    }

    private static long tally(String output) {
        final Matcher m = Pattern.compile("scenario p64-o16-r20-cold done: (\\d+) requests").matcher(output);
        assertThat(m.find()).as(output).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static String[] with(String[] common, String... more) {
        final String[] out = Arrays.copyOf(common, common.length + more.length);
        System.arraycopy(more, 0, out, common.length, more.length);
        return out;
    }
}
