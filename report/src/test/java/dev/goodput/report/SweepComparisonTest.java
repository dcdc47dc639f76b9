package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two sweeps compared at their operating points: the verdict, its refusals, and the file a bundle keeps. */
class SweepComparisonTest {

    private static final String TARGET = "99.0 % of requests good (objectives and quality floor)";

    private static SweepResult sweep(double highest, Double cost, double... failing) {
        final List<SweepResult.Point> points = new java.util.ArrayList<>();
        points.add(new SweepResult.Point("p64-o64-r" + (int) highest, highest, 300, 0.995, true, null, highest * 0.99, cost));
        for (double f : failing) {
            points.add(new SweepResult.Point("p64-o64-r" + (int) f, f, 300, 0.9, false, "queue grew", f * 0.8, 9.0));
        }
        return new SweepResult(TARGET, "req/s", points, new SweepResult.Answer(highest, failing.length == 0 ? null : failing[0],
                "p64-o64-r" + (int) highest, 0.995, highest * 0.99, cost));
    }

    @Test
    void theCheaperOperatingPointIsNamedWithHowMuch() {
        final SweepComparison c = SweepComparison.of(sweep(24, 1.25, 28), sweep(16, 1.50, 20, 28), List.of(), false);
        assertThat(c.verdict()).startsWith("A is cheaper per successful 1M output tokens at its operating point: $1.2500 against"
                + " $1.5000 (B costs 20.0 % more). A serves 24 req/s within the target, B 16 req/s.");
        // the load both swept, side by side, the failing one marked
        assertThat(c.text()).contains("Loads both swept").containsPattern("28\\s+90\\.0%!\\s+\\$9\\.0000\\s+90\\.0%!");
        final SweepComparison reversed = SweepComparison.of(sweep(16, 1.50, 20), sweep(24, 1.25, 28), List.of(), false);
        assertThat(reversed.verdict()).startsWith("B is cheaper").contains("(A costs 20.0 % more)");
    }

    @Test
    void noWinnerIsNamedForSweepsJudgedDifferentlyUnlessAsked() {
        final SweepResult slo = new SweepResult("99.0 % of requests within every latency objective", "req/s",
                sweep(16, 1.5).points(), sweep(16, 1.5).answer());
        final SweepComparison c = SweepComparison.of(sweep(24, 1.25, 28), slo, List.of("latency_objectives.ttft_ms differs"), false);
        assertThat(c.verdict()).startsWith("No verdict: latency_objectives.ttft_ms differs; the targets differ")
                .endsWith("(--allow-unfair names one anyway).");
        assertThat(SweepComparison.of(sweep(24, 1.25, 28), slo, List.of(), true).verdict())
                .startsWith("A is cheaper").contains("named although the targets differ");
        final SweepResult closed = new SweepResult(TARGET, "concurrent", sweep(16, 1.5).points(), sweep(16, 1.5).answer());
        assertThat(SweepComparison.of(sweep(24, 1.25), closed, List.of(), false).verdict()).contains("A swept req/s, B concurrent");
    }

    @Test
    void aSideWithoutAnOperatingPointOrACostSaysSo() {
        final SweepResult none = new SweepResult(TARGET, "req/s", sweep(2, 3.0).points(), null);
        assertThat(SweepComparison.of(sweep(24, 1.25), none, List.of(), false).verdict())
                .isEqualTo("A is the only configuration meeting the target: up to 24 req/s, at $1.2500 per successful 1M.");
        assertThat(SweepComparison.of(none, none, List.of(), false).verdict()).startsWith("Neither configuration");
        assertThat(SweepComparison.of(sweep(24, null), sweep(16, 1.5), List.of(), false).verdict())
                .startsWith("No cost verdict: A has no cost per successful 1M");
    }

    @Test
    void aBundleKeepsItsSweepAndAnotherFolderHasNone(@TempDir Path dir) {
        final SweepResult s = sweep(24, 1.25, 28);
        s.write(dir.resolve("run"));
        assertThat(SweepResult.read(dir.resolve("run"))).isEqualTo(s);
        assertThat(SweepResult.read(dir.resolve("run").resolve("summary.json"))).isEqualTo(s);
        assertThat(SweepResult.read(dir)).isNull();
        assertThat(dir.resolve("run").resolve(SweepResult.FILE)).content().contains("\"highest_meeting\" : 24.0", "\"load_unit\"");
    }
}
