package dev.goodput.report;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.goodput.config.ClientConfig;
import org.apache.kafka.clients.admin.Admin;

/**
 * What produced a result: software and runtime versions, the target server's own version when it
 * reports one, and the exact commands that made the run, the report, and a recomputation.
 *
 * @param commands by purpose ("run", "report", "recompute"), each a command line to paste
 */
public record Provenance(String goodputVersion, String javaVersion, String javaVm, String kafkaClientVersion, String kafkaBroker,
                         String os, String targetVersion, Map<String, String> commands, Instant createdAt,
                         List<String> scenariosNotRun) {

    /** Goodput's version, as the CLI reports it. */
    public static final String GOODPUT_VERSION = "0.1.0";

    /**
     * This JVM's facts, with the broker's and the target's versions (null when unknown), the commands,
     * and the scenarios the run planned but never started (a --duration ended it first).
     */
    public static Provenance here(String kafkaBroker, String targetVersion, Map<String, String> commands, List<String> notRun) {
        return new Provenance(GOODPUT_VERSION, System.getProperty("java.version"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"), clientLibraryVersion(),
                kafkaBroker, System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                targetVersion, new LinkedHashMap<>(commands), Instant.now(), List.copyOf(notRun));
    }

    /**
     * The Kafka client library's version, from the version file its jar carries (what Kafka's own
     * AppInfoParser reads; that class is internal), or "unknown".
     */
    static String clientLibraryVersion() {
        try (InputStream in = Admin.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            final Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown").trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * The cluster's finalized {@code metadata.version} level and its controller's id: what a
     * KRaft cluster says of its version over the Admin API. Null when it cannot be asked.
     */
    public static String probeBroker(Properties client) {
        try (Admin admin = Admin.create(ClientConfig.forAdmin(client))) {
            final var features = admin.describeFeatures().featureMetadata().get(10, TimeUnit.SECONDS);
            final var mv = features.finalizedFeatures().get("metadata.version");
            return mv == null ? null : "metadata.version level " + mv.maxVersionLevel();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
