package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C on {@code goodput demo}, as a user stops it: the run stops, closes cleanly and still
 * writes its report bundle before the JVM exits.
 */
class DemoShutdownIT {

    @Test
    void ctrlCStopsTheRunAndWritesItsReport(@TempDir Path dir) throws Exception {
        final String out;
        try (ChildCli demo = ChildCli.start(ChildCli.SHORT_WINDOWS, "demo", "--fresh", "--data-dir", dir.resolve("data").toString(),
                "--contract", "../config/contract.yaml", "--matrix", "../config/scenarios.yaml", "--prices", "../config/prices.yaml",
                "--report-dir", dir.resolve("reports").toString(), "--scenario-seconds", "3")) {
            demo.awaitLine("Press Ctrl-C");
            Thread.sleep(12_000);
            out = demo.interruptAndWait();
        }
        assertThat(out).contains("Stopping.").contains("Report: ").contains("Stopped.");
        try (Stream<Path> reports = Files.list(dir.resolve("reports"))) {
            final List<Path> runs = reports.toList();
            assertThat(runs).hasSize(1);
            assertThat(runs.get(0).resolve("index.html")).exists();
            assertThat(runs.get(0).resolve("requests.csv")).exists();
            // every measured request is in a final, priced window (the run's last windows were closed, not left open)
            final Map<String, Object> manifest = new ObjectMapper()
                    .readValue(runs.get(0).resolve("manifest.json").toFile(), Map.class);
            final long measured = ((Number) manifest.get("measured_requests")).longValue();
            assertThat(measured).isPositive();
            assertThat(((Number) manifest.get("verdicts")).longValue()).isEqualTo(measured);
            final List<Map<String, String>> windows = csv(runs.get(0).resolve("windows.csv"));
            assertThat(windows).isNotEmpty().allSatisfy(w -> assertThat(w.get("final")).as("window " + w).isEqualTo("true"));
            assertThat(windows.stream().mapToLong(w -> Long.parseLong(w.get("requests"))).sum()).isEqualTo(measured);
            final List<Map<String, String>> costs = csv(runs.get(0).resolve("cost.csv"));
            for (Map<String, String> w : windows) {
                assertThat(costs).as("cost of window " + w.get("scenario_id") + " " + w.get("window_start_us"))
                        .anySatisfy(c -> {
                            assertThat(c.get("scenario_id")).isEqualTo(w.get("scenario_id"));
                            assertThat(c.get("window_start_us")).isEqualTo(w.get("window_start_us"));
                            assertThat(c.get("priced")).isEqualTo("true");
                        });
            }
        }
        assertThat(out).contains("Closing the run's last windows");
    }

    /** A bundle CSV as rows by column name (the bundle quotes no field these tests read). */
    private static List<Map<String, String>> csv(Path file) throws IOException {
        final List<String> lines = Files.readAllLines(file);
        final String[] header = lines.get(0).split(",", -1);
        final List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            final String[] f = line.split(",", -1);
            final Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.length && i < f.length; i++) {
                row.put(header[i], f[i]);
            }
            rows.add(row);
        }
        return rows;
    }
}
