package dev.goodput.runner;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.report.ScenarioSummary;

/**
 * The end of a demo on one screen: a row per scenario from the pipeline's final windows and the
 * sink's prices (load, requests, good share, why the rest were not good, TTFT and TPOT p99, goodput,
 * cost per good 1M output tokens), the best scenario meeting the objectives, and what to do next. The
 * blocks in vLLM's layout go to the bundle ({@code serving.txt}), titled with whose definitions they
 * use.
 */
final class EndTable {
    private EndTable() {
    }

    /** Why a scenario's requests were not good, counted from their verdicts: each failed objective, quality, errors. */
    record Causes(long errors, long ttft, long tpot, long e2e, long incomplete, long quality) {
        static Causes of(List<RequestVerdict> verdicts) {
            long errors = 0, ttft = 0, tpot = 0, e2e = 0, incomplete = 0, quality = 0;
            for (RequestVerdict v : verdicts) {
                if (v.getStatus() != RequestStatus.OK) {
                    errors++;
                    continue;
                }
                final List<String> f = v.getFailedObjectives();
                ttft += f.contains("ttft") ? 1 : 0;
                tpot += f.contains("tpot") ? 1 : 0;
                e2e += f.contains("e2el") ? 1 : 0;
                incomplete += f.contains("incomplete") ? 1 : 0;
                quality += f.isEmpty() && !v.getQualityPass() ? 1 : 0;
            }
            return new Causes(errors, ttft, tpot, e2e, incomplete, quality);
        }

        String text() {
            final StringBuilder b = new StringBuilder();
            append(b, "quality", quality);
            append(b, "ttft", ttft);
            append(b, "tpot", tpot);
            append(b, "e2e", e2e);
            append(b, "incomplete", incomplete);
            append(b, "errors", errors);
            return b.length() == 0 ? "-" : b.toString();
        }

        private static void append(StringBuilder b, String what, long n) {
            if (n > 0) {
                b.append(b.length() == 0 ? "" : " ").append(what).append(' ').append(n);
            }
        }
    }

    static void print(PrintStream out, List<ScenarioSummary> summaries, Map<String, List<RequestVerdict>> verdictsByScenario) {
        out.println("Results (from the pipeline's final windows and the sink's prices; the blocks in vLLM's layout are in the"
                + " bundle's serving.txt):");
        out.printf(Locale.ROOT, "  %-22s %9s %8s %7s %-26s %9s %9s %9s %11s%n", "scenario", "load", "requests", "good",
                "not good: why (requests)", "TTFT p99", "TPOT p99", "goodput", "$/good 1M");
        ScenarioSummary best = null;
        for (ScenarioSummary s : summaries) {
            final Causes why = Causes.of(verdictsByScenario.getOrDefault(s.scenarioId(), List.of()));
            out.printf(Locale.ROOT, "  %-22s %9s %8d %7s %-26s %9s %9s %9s %11s%n", s.scenarioId(),
                    String.format(Locale.ROOT, s.closedLoop() ? "c%.0f" : "%.4g/s", s.load()), s.requests(),
                    s.requests() == 0 ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * s.goodFraction()), why.text(),
                    ms(s.latency().get("ttft").getTotalCount() == 0 ? Double.NaN : s.latency().get("ttft").getValueAtPercentile(99)),
                    ms(s.latency().get("tpot").getTotalCount() == 0 ? Double.NaN : s.latency().get("tpot").getValueAtPercentile(99)),
                    String.format(Locale.ROOT, "%.2f/s", s.goodputRps()),
                    cost(s));
            if (s.costPerSuccessfulM() != null && (best == null || s.costPerSuccessfulM() < best.costPerSuccessfulM())) {
                best = s;
            }
        }
        if (best != null) {
            out.printf(Locale.ROOT, "Cheapest per good token: %s at $%.4f per successful 1M output tokens (%.1f%% of its requests good).%n",
                    best.scenarioId(), best.costPerSuccessfulM(), 100 * best.goodFraction());
        }
    }

    /** The blocks in vLLM's layout, one a scenario, in the bundle's {@code serving.txt} rather than on the screen. */
    static void servingFile(Path bundle, List<ScenarioSummary> summaries) {
        final List<String> lines = new ArrayList<>();
        for (ScenarioSummary s : summaries) {
            lines.add("scenario " + s.scenarioId() + ":");
            lines.addAll(s.serving().lines());
        }
        try {
            Files.write(bundle.resolve("serving.txt"), lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + bundle.resolve("serving.txt"), e);
        }
    }

    /** What to do next, as commands. */
    static void next(PrintStream out, String page, String dataFlags, String runId) {
        out.println("Next: open " + page + " | ./goodput replay " + dataFlags + " --run-id " + runId
                + " --replay-id what-if --goodput ttft:200 tpot:50 e2el:5000 | ./goodput compare <bundle> <bundle>");
    }

    /** The cost per good 1M, or why there is none: no price in force, or no good token to divide by. */
    static String cost(ScenarioSummary s) {
        if (s.costPerSuccessfulM() != null) {
            return String.format(Locale.ROOT, "$%.4f", s.costPerSuccessfulM());
        }
        return s.hourlyCostUsd() == null ? "not priced" : "no good token";
    }

    private static String ms(double us) {
        return Double.isNaN(us) ? "-" : String.format(Locale.ROOT, "%.1f ms", us / 1000);
    }
}
