package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.goodput.config.Replication;
import dev.goodput.kafka.EmbeddedCluster;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goodput on a real 3-node KRaft cluster replicated as production clusters are (default
 * replication 3, min.insync.replicas 2), each node a JVM of its own: every topic the demo creates,
 * its own, the registry's {@code _schemas}, Kafka Streams' internal topics and the transaction log,
 * takes the cluster's replication, read back from the cluster; a replication the user sets is the one
 * a topic gets, and one below what the cluster can give is said (#61).
 */
class ClusterIT {

    @Test
    void everyTopicTakesTheClustersReplicationOrTheUsers(@TempDir Path dir) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(3);
             InProcessSchemaRegistry registry = InProcessSchemaRegistry.onKafka(cluster.bootstrapServers(), "_schemas", 0)) {
            final Path matrix = dir.resolve("matrix.yaml");
            Files.writeString(matrix, "prompt_tokens: [32]\noutput_tokens: [8]\nrates_rps: [5]\ncache: [cold]\nduration_s: 6\n");
            try (ChildCli demo = ChildCli.start(ChildCli.SHORT_WINDOWS, "demo", "--bootstrap-server", cluster.bootstrapServers(),
                    "--schema-registry", registry.url(), "--contract", "../config/contract.yaml", "--prices", "../config/prices.yaml",
                    "--matrix", matrix.toString(), "--report-dir", dir.resolve("reports").toString(),
                    "--duration", "60s")) {
                assertThat(demo.waitForExit()).as(demo.output()).isZero();
                assertThat(demo.output()).as("no replication warning on a replicated cluster").doesNotContain("replica(s) on a cluster");
            }
            try (Admin admin = cluster.admin()) {
                final Set<String> names = admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                        .names().get(60, TimeUnit.SECONDS);
                assertThat(names).contains("_schemas", Topics.TOKENS.name(), Topics.REQUESTS.name(), Topics.PRICES.name(),
                        Topics.VERDICTS.name(), Topics.COST.name(), "__transaction_state", "__consumer_offsets")
                        .anyMatch(n -> n.endsWith("-changelog"));
                final Map<String, TopicDescription> d = admin.describeTopics(names).allTopicNames().get(60, TimeUnit.SECONDS);
                d.forEach((name, t) -> assertThat(t.partitions()).as(name)
                        .allSatisfy(p -> assertThat(p.replicas()).as("%s partition %d", name, p.partition()).hasSize(3)));
                // goodput topics describes the same and finds nothing to mend
                assertThat(Main.run("topics", "--bootstrap-server", cluster.bootstrapServers())).isZero();

                // the user's replication, where they give one, and a topic below the cluster's reach is said
                final Properties two = new Properties();
                two.put("bootstrap.servers", cluster.bootstrapServers());
                two.put(Replication.KEY, "2");
                Topics.createMissing(admin, List.of(Topics.TOKENS.named("llm.tokens.two")), two);
                final List<Replication.Held> held = Replication.describe(admin, List.of("llm.tokens.two"));
                assertThat(held).singleElement().satisfies(h -> {
                    assertThat(h.replicas()).isEqualTo(2);
                    assertThat(h.minInsyncReplicas()).isEqualTo(2);
                });
                assertThat(Replication.problems(held, Replication.brokers(admin))).singleElement()
                        .satisfies(p -> assertThat(p).contains("llm.tokens.two has 2 replica(s) on a cluster of 3 brokers"));
                assertThat(Main.run("topics", "--bootstrap-server", cluster.bootstrapServers())).as("a topic to mend").isEqualTo(Main.EXIT_FAILED);
            }
        }
    }
}
