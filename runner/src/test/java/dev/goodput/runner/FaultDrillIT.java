package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.goodput.avro.TokenEvent;
import dev.goodput.registry.SchemaRegistryClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fault drill with the broker and the registry as their own processes ({@code goodput broker},
 * {@code goodput registry}): the broker is stopped and started again on its kept data, and the
 * streams-app says so in one line each way; the registry is stopped and started again and serves
 * the same schema ids from the topic it keeps them in.
 */
class FaultDrillIT {

    @Test
    void brokerAndRegistryRestartsAreSurvivedAndSaid(@TempDir Path dir) throws Exception {
        final Path data = dir.resolve("broker");
        final String bootstrap;
        final String controllerPort;
        ChildCli broker = ChildCli.start("broker", "--data-dir", data.toString(), "--port", "0", "--controller-port", "0");
        try {
            final Matcher b = Pattern.compile("broker ready at (\\S+) \\(controller port (\\d+)\\)")
                    .matcher(broker.awaitLine("broker ready at"));
            assertThat(b.find()).isTrue();
            bootstrap = b.group(1);
            controllerPort = b.group(2);
            final String port = bootstrap.substring(bootstrap.lastIndexOf(':') + 1);

            final String registryUrl;
            final int schemaId;
            try (ChildCli registry = ChildCli.start("registry", "--bootstrap-server", bootstrap, "--port", "0")) {
                final Matcher r = Pattern.compile("ready at (http://\\S+)").matcher(registry.awaitLine("schema registry ready"));
                assertThat(r.find()).isTrue();
                registryUrl = r.group(1);
                schemaId = new SchemaRegistryClient(registryUrl).register("drill-value", TokenEvent.getClassSchema());
                assertThat(registry.terminateAndWait()).as(registry.output()).isIn(0, 143);
            }
            final String registryPort = registryUrl.substring(registryUrl.lastIndexOf(':') + 1);
            try (ChildCli registry = ChildCli.start("registry", "--bootstrap-server", bootstrap, "--port", registryPort)) {
                registry.awaitLine("schema registry ready");
                // the restarted registry read its schemas back from the broker: same id, same schema
                assertThat(new SchemaRegistryClient(registryUrl).register("drill-value", TokenEvent.getClassSchema()))
                        .isEqualTo(schemaId);
                try (ChildCli streams = ChildCli.start("streams", "--bootstrap-server", bootstrap, "--schema-registry", registryUrl,
                         "--contract", "../config/contract.yaml", "--state-dir", dir.resolve("streams").toString())) {
                streams.awaitLine("streams-app goodput-streams running");

                assertThat(broker.terminateAndWait()).as(broker.output()).isIn(0, 143);
                assertThat(streams.awaitContaining("streams-app: lost Kafka at " + bootstrap)).contains("WARN");
                broker = ChildCli.start("broker", "--data-dir", data.toString(), "--port", port, "--controller-port", controllerPort);
                broker.awaitLine("broker ready at " + bootstrap);
                assertThat(streams.awaitContaining("streams-app: Kafka at " + bootstrap + " is back after")).contains("INFO");
                // one line each way, no stack trace, and nothing said of the registry, which stayed up
                assertThat(streams.interruptAndWait()).doesNotContainPattern("\\n\\s+at ").doesNotContain("schema registry");
                }
            }
        } finally {
            broker.close();
        }
    }
}
