package dev.goodput.runner;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.goodput.generator.sweep.SweepSearch;
import dev.goodput.report.ScenarioSummary;
import dev.goodput.report.SweepComparison;
import dev.goodput.report.SweepResult;

/**
 * The end of a sweep: one row per point (load, measured requests, the attainment the search judged
 * by, and from the pipeline's final windows and the sink's prices its goodput and cost per
 * successful 1M output tokens), then the answer in a sentence: the highest load meeting the target,
 * the lowest failing it, and what a good token costs at the answer.
 */
final class SweepReport {
    private SweepReport() {
    }

    /** Prints the sweep's table and answer, and keeps them in the run's bundle folder ({@link SweepResult}). */
    static void print(PrintStream out, List<DemoLoad.SweepPoint> points, List<ScenarioSummary> summaries, SweepOptions.Target goal,
                      Path bundle) {
        if (points.isEmpty()) {
            out.println("sweep: no point ran");
            return;
        }
        result(points, summaries, goal).write(bundle);
        final Map<String, ScenarioSummary> byId = summaries.stream().collect(Collectors.toMap(ScenarioSummary::scenarioId,
                Function.identity(), (a, b) -> a));
        out.println("Sweep (target: " + goal.text() + "):");
        out.printf(Locale.ROOT, "  %-22s %8s %9s %12s %14s %14s  %s%n", "scenario", "load", "measured", "attainment", "goodput req/s",
                "$/good 1M tok", "verdict");
        for (DemoLoad.SweepPoint p : points.stream().sorted((a, b) -> Double.compare(a.load(), b.load())).toList()) {
            final ScenarioSummary s = byId.get(p.scenarioId());
            out.printf(Locale.ROOT, "  %-22s %8s %9d %12s %14s %14s  %s%n", p.scenarioId(), load(p.load()), p.attainment().measured(),
                    SweepOptions.pct(p.share()), s == null ? "-" : String.format(Locale.ROOT, "%.2f", s.goodputRps()),
                    s == null ? "-" : EndTable.cost(s),
                    (p.meets() ? "meets" : "fails") + (p.stoppedBecause() == null ? "" : ", ended early: " + p.stoppedBecause()));
        }
        final SweepSearch.Answer a = SweepSearch.answer(points.stream().map(p -> new SweepSearch.Point(p.load(), p.meets())).toList());
        if (!a.found()) {
            out.println("Operating point: none found: the lowest load tried, " + load(a.lowestFailing()) + ", did not meet the target.");
            return;
        }
        final DemoLoad.SweepPoint at = points.stream().filter(p -> p.load() == a.highestMeeting()).findFirst().orElseThrow();
        final ScenarioSummary s = byId.get(at.scenarioId());
        out.printf(Locale.ROOT, "Operating point: %s (%s) meets the target with %s; %s%s.%n", load(a.highestMeeting()), at.scenarioId(),
                SweepOptions.pct(at.share()), Double.isNaN(a.lowestFailing()) ? "no load up to the cap failed it"
                        : load(a.lowestFailing()) + " does not",
                s == null || s.costPerSuccessfulM() == null ? "; no cost per successful 1M there (" + (s == null ? "no final window"
                        : EndTable.cost(s)) + ")"
                        : String.format(Locale.ROOT, "; cost per successful 1M output tokens there: $%.4f (goodput %.2f req/s, %s of"
                                + " requests good by the pipeline)", s.costPerSuccessfulM(), s.goodputRps(), SweepOptions.pct(s.goodFraction())));
    }

    /** The sweep as its bundle keeps it: every point with its figures from the pipeline, and the answer. */
    static SweepResult result(List<DemoLoad.SweepPoint> points, List<ScenarioSummary> summaries, SweepOptions.Target goal) {
        final Map<String, ScenarioSummary> byId = summaries.stream().collect(Collectors.toMap(ScenarioSummary::scenarioId,
                Function.identity(), (a, b) -> a));
        final List<SweepResult.Point> kept = points.stream().sorted((a, b) -> Double.compare(a.load(), b.load())).map(p -> {
            final ScenarioSummary s = byId.get(p.scenarioId());
            return new SweepResult.Point(p.scenarioId(), p.load(), p.attainment().measured(), p.share(), p.meets(), p.stoppedBecause(),
                    s == null ? null : s.goodputRps(), s == null ? null : s.costPerSuccessfulM());
        }).toList();
        final SweepSearch.Answer a = SweepSearch.answer(points.stream().map(p -> new SweepSearch.Point(p.load(), p.meets())).toList());
        SweepResult.Answer answer = null;
        if (a.found()) {
            final SweepResult.Point at = kept.stream().filter(p -> p.load() == a.highestMeeting()).findFirst().orElseThrow();
            answer = new SweepResult.Answer(a.highestMeeting(), Double.isNaN(a.lowestFailing()) ? null : a.lowestFailing(),
                    at.scenarioId(), at.attainment(), at.goodputRps(), at.costPerSuccessfulMUsd());
        }
        return new SweepResult(goal.text(), points.get(0).closedLoop() ? "concurrent" : "req/s", kept, answer);
    }

    private static String load(double l) {
        return SweepComparison.load(l, "");
    }
}
