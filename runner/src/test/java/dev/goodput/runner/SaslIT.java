package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command against a broker reached only through a SASL_PLAINTEXT listener, its credentials in
 * a client properties file ({@code --command-config}, as Kafka's tools take it): registry, prices,
 * produce, streams, sink, replay, report and demo each work, so every Kafka client each of them
 * makes (admin, producer, consumer, Streams) got the security settings, not just the address.
 */
class SaslIT {

    private static final String USER = "goodput";
    private static final String PASSWORD = "sasl-it-password";
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.startTemporaryWithSasl(Map.of(USER, PASSWORD));
    }

    @AfterAll
    static void stopBroker() {
        kafka.close();
    }

    @Test
    void everyCommandWorksThroughASaslListener(@TempDir Path dir) throws Exception {
        final Path config = dir.resolve("client.properties");
        try (Writer w = Files.newBufferedWriter(config)) {
            kafka.saslClientProperties(USER, PASSWORD).store(w, "SASL_PLAINTEXT client");
        }
        final String cc = config.toString();
        final Path wrong = dir.resolve("wrong.properties");
        try (Writer w = Files.newBufferedWriter(wrong)) {
            kafka.saslClientProperties(USER, "not-the-password").store(w, "wrong password");
        }
        try (ChildCli refused = ChildCli.start("streams", "--command-config", wrong.toString(), "--contract",
                "../config/contract.yaml", "--state-dir", dir.resolve("refused").toString())) {
            assertThat(refused.waitForExit()).isEqualTo(1);
            assertThat(refused.output()).contains("refused the credentials").doesNotContain("not-the-password");
        }
        try (ChildCli registry = ChildCli.start("registry", "--command-config", cc, "--port", "0")) {
            final Matcher m = Pattern.compile("schema registry ready at (http://\\S+)").matcher(registry.awaitLine("schema registry ready"));
            assertThat(m.find()).isTrue();
            final String url = m.group(1);

            assertThat(run("prices", "--command-config", cc, "--schema-registry", url, "--file", "../config/prices.yaml"))
                    .isZero();
            assertThat(run("produce", "--simulate", "--command-config", cc, "--schema-registry", url, "--contract",
                    "../config/contract.yaml", "--scenario", "p64-o32-r10-cold", "--warmup", "0", "--duration", "4",
                    "--run-id", "sasl-run", "--timing-priority", "normal",
                    // nothing here waits for the run's windows to close: no 15 s of ticks after it
                    "--close-windows-after", "0")).isZero();
            assertThat(endOffsets(Topics.REQUESTS.name())).as("request events").isPositive();
            try (Admin admin = Admin.create(client())) {
                // the raw topics a command created carry the broker's append time, which the streams-app judges skew by
                final var res = new ConfigResource(
                        ConfigResource.Type.TOPIC, Topics.REQUESTS.name());
                assertThat(admin.describeConfigs(List.of(res)).all().get().get(res).get("message.timestamp.type").value())
                        .isEqualTo("LogAppendTime");
            }

            try (ChildCli streams = ChildCli.start("streams", "--command-config", cc, "--schema-registry", url,
                    "--contract", "../config/contract.yaml", "--state-dir", dir.resolve("streams").toString());
                 ChildCli sink = ChildCli.start("sink", "--command-config", cc, "--schema-registry", url,
                         "--contract", "../config/contract.yaml", "--metrics-port", "0", "--state-dir", dir.resolve("sink").toString())) {
                streams.awaitLine("streams-app goodput-streams running");
                sink.awaitLine("sink goodput-sink running");
                // the streams-app wrote verdicts and window records, and the sink consumed window records
                awaitPositive(() -> endOffsets(Topics.VERDICTS.name()), "verdicts");
                awaitPositive(() -> committed("goodput-sink"), "the sink's committed offsets");
            }

            assertThat(run("replay", "--command-config", cc, "--schema-registry", url, "--contract", "../config/contract.yaml",
                    "--replay-id", "sasl", "--run-id", "sasl-run", "--idle-seconds", "3")).isZero();
            assertThat(endOffsets(Topics.VERDICTS.name() + ".sasl")).as("replayed verdicts").isPositive();

            assertThat(run("report", "--command-config", cc, "--schema-registry", url, "--contract", "../config/contract.yaml",
                    "--run-id", "sasl-run", "--out", dir.resolve("report").toString())).isZero();
            assertThat(dir.resolve("report").resolve("index.html")).exists();

            // short windows, so the demo's closing wait (a window and its grace) is 7 s, not 15 s
            try (ChildCli demo = ChildCli.start(ChildCli.SHORT_WINDOWS, "demo", "--command-config", cc, "--schema-registry", url,
                    "--contract", "../config/contract.yaml", "--matrix", "../config/scenarios.yaml", "--prices",
                    "../config/prices.yaml", "--data-dir", dir.resolve("demo").toString(), "--report-dir",
                    dir.resolve("demo-reports").toString(), "--scenario-seconds", "3", "--duration", "15s")) {
                final int rc = demo.waitForExit();
                assertThat(rc).as(demo.output()).isZero();
                assertThat(demo.output()).contains("(external cluster)").contains("2 s windows, 5 s grace").contains("Stopped.");
            }
        }
    }

    /**
     * A command that runs and exits, in this JVM through {@link Main#run} (what {@code main} calls):
     * its clients are made as in a child JVM, from the same flags and file, without a JVM's start-up
     * for each. The long-running commands (registry, streams, sink, demo) stay child processes. Its
     * output and errors are kept together, as a child's merged output was, for the failure message.
     */
    private static int run(String... args) {
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final PrintStream both = new PrintStream(captured, true, StandardCharsets.UTF_8);
        final PrintStream stdout = System.out;
        final PrintStream stderr = System.err;
        System.setOut(both);
        System.setErr(both);
        final int rc;
        try {
            rc = Main.run(args);
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        assertThat(rc).as("%s:%n%s", args[0], captured.toString(StandardCharsets.UTF_8)).isZero();
        return rc;
    }

    private static Properties client() {
        return kafka.saslClientProperties(USER, PASSWORD);
    }

    private static long endOffsets(String topic) throws Exception {
        try (Admin admin = Admin.create(client())) {
            final var d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            final Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
            d.partitions().forEach(p -> specs.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            return admin.listOffsets(specs).all().get().values().stream().mapToLong(o -> o.offset()).sum();
        }
    }

    private static long committed(String group) throws Exception {
        try (Admin admin = Admin.create(client())) {
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().values().stream()
                    .filter(o -> o != null).mapToLong(o -> o.offset()).sum();
        }
    }

    private interface Count {
        long get() throws Exception;
    }

    /** Waits for a condition; the bound only keeps a broken build from hanging. */
    private static void awaitPositive(Count count, String what) throws Exception {
        final long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        long n = 0;
        while (System.nanoTime() < deadline) {
            try {
                n = count.get();
            } catch (ExecutionException e) {
                n = 0; // the topic or group may not exist yet
            }
            if (n > 0) {
                return;
            }
            Thread.sleep(250);
        }
        assertThat(n).as(what).isPositive();
    }
}
