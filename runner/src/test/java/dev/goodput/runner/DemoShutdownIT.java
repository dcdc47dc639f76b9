package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C on {@code goodput demo}, as a user stops it: the run stops, closes cleanly and still
 * writes its report bundle before the JVM exits.
 */
class DemoShutdownIT {

    @Test
    void ctrlCStopsTheRunAndWritesItsReport(@TempDir Path dir) throws Exception {
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=dev.goodput", "-cp", System.getProperty("java.class.path"),
                "dev.goodput.runner.Main", "demo", "--fresh", "--data-dir", dir.resolve("data").toString(),
                "--contract", "../config/contract.yaml", "--matrix", "../config/scenarios.yaml", "--prices", "../config/prices.yaml",
                "--report-dir", dir.resolve("reports").toString(), "--scenario-seconds", "3"));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null && !line.startsWith("Press Ctrl-C")) {
                lines.add(line);
            }
            assertThat(line).as("the demo got ready:%n%s", String.join("\n", lines)).isNotNull();
            Thread.sleep(12_000);
            // SIGINT, what Ctrl-C sends
            assertThat(new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor()).isZero();
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        }
        assertThat(p.waitFor(150, TimeUnit.SECONDS)).isTrue();
        final String out = String.join("\n", lines);
        assertThat(out).contains("Stopping.").contains("Report: ").contains("Stopped.");
        try (Stream<Path> reports = Files.list(dir.resolve("reports"))) {
            final List<Path> runs = reports.toList();
            assertThat(runs).hasSize(1);
            assertThat(runs.get(0).resolve("index.html")).exists();
            assertThat(runs.get(0).resolve("requests.csv")).exists();
        }
    }
}
