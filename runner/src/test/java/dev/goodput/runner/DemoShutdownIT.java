package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
        final String out;
        try (ChildCli demo = ChildCli.start("demo", "--fresh", "--data-dir", dir.resolve("data").toString(),
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
        }
    }
}
