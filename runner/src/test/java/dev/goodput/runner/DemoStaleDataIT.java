package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data folder whose topics do not fit this build (here the sink's changelog with one partition
 * where the sink needs six): the sink refuses to run, and the demo stops, says why and how to start
 * clean, and exits 1, instead of running on without costs.
 */
class DemoStaleDataIT {

    @Test
    void aSinkThatCannotStartStopsTheDemoWithTheFix(@TempDir Path dir) throws Exception {
        assertStopsNaming(dir, "goodput-demo-sink-recent-windows-changelog", "The sink stopped: ");
    }

    /**
     * The same for the streams-app: its failed threads are replaced a bounded number of times, then it
     * reaches ERROR and the demo stops naming it and the cause (it used to replace them forever, and the
     * demo ran to its end and exited 0 with no window rows).
     */
    @Test
    void aStreamsAppThatKeepsFailingStopsTheDemoWithTheCause(@TempDir Path dir) throws Exception {
        assertStopsNaming(dir, "goodput-demo-inflight-requests-v2-changelog", "The streams-app stopped: ");
    }

    private static void assertStopsNaming(Path dir, String staleTopic, String expected) throws Exception {
        final Path data = dir.resolve("data");
        try (LocalCluster cluster = LocalCluster.start(data, true, 0, 0, Topics.ALL);
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(staleTopic, 1, (short) 1))).all().get();
        }
        final String out;
        final int exit;
        try (ChildCli demo = ChildCli.start("demo", "--data-dir", data.toString(),
                "--contract", "../config/contract.yaml", "--matrix", "../config/scenarios.yaml", "--prices", "../config/prices.yaml",
                "--report-dir", dir.resolve("reports").toString(), "--scenario-seconds", "3", "--duration", "90s")) {
            exit = demo.waitForExit();
            out = demo.output();
        }
        assertThat(exit).as(out).isEqualTo(Main.EXIT_FAILED);
        assertThat(out).contains(expected).contains("start clean with --fresh")
                .doesNotContain("Stopped.")
                // nothing the stopped part would close or price is waited for
                .contains("Not waiting for the run's last windows: the " + expected.substring("The ".length(), expected.indexOf(':')) + ".")
                .doesNotContain("Closing the run's last windows");
    }
}
