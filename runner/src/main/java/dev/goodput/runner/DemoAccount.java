package dev.goodput.runner;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.goodput.avro.RunSummary;
import dev.goodput.generator.load.Matrix;
import dev.goodput.generator.load.Scenario;
import dev.goodput.report.RunRecords;
import dev.goodput.topics.Topics;

/** The demo's last word on a run: what it measured against what the pipeline made of it. */
final class DemoAccount {

    private DemoAccount() {
    }

    /**
     * What the run measured against what the pipeline made of it: the measured requests (the run's
     * request events that pass the door checks, as the streams-app takes them) against the verdicts,
     * what the door checks left out and what went to the DLQ, by reason. A gap is said first, not left
     * to be found in requests.csv.
     */
    static void print(PrintStream out, RunRecords records, Map<String, Long> dlq) {
        records.runs().stream().filter(r -> Boolean.TRUE.equals(r.getStoppedEarly())).forEach(r -> out.println("Scenario "
                + r.getScenarioId() + " was cut short (the run ended before its planned end): its figures cover only the part"
                + " that ran."));
        final long measured = records.measuredRequests();
        final long verdicts = records.verdicts().size();
        final long refused = dlq.values().stream().mapToLong(Long::longValue).sum();
        if (verdicts != measured) {
            out.printf(Locale.ROOT, "WARNING: the run has %d measured requests and the results hold %d verdicts: %d %s%n",
                    measured, verdicts, Math.abs(measured - verdicts), verdicts < measured ? "missing" : "too many");
        }
        out.printf(Locale.ROOT, "Accounted: %d measured requests, %d verdicts; %d records refused to %s during the run%s%n",
                measured, verdicts, refused, Topics.DLQ.name(), reasons(dlq));
        final long door = records.refused().values().stream().mapToLong(Long::longValue).sum();
        if (door > 0) {
            out.printf(Locale.ROOT, "The report left out %d raw events of the run that the door checks refuse, as the streams-app "
                    + "does%s: they are in no figure%n", door, reasons(records.refused()));
        }
        final long counted = records.generatorsCounted();
        if (counted != measured) {
            out.printf(Locale.ROOT, "The generators' run summaries count %d measured requests; %d request events of the run passed"
                    + " the door checks%n", counted, measured);
        }
    }

    private static String reasons(Map<String, Long> byReason) {
        return byReason.isEmpty() ? "" : " (" + byReason.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")) + ")";
    }


    /** The matrix's scenarios that never started: the run ended (--duration, Ctrl-C, a failure) before them. */
    static List<String> notRun(Matrix matrix, RunRecords records) {
        final Set<String> ran = records.runs().stream().map(RunSummary::getScenarioId).collect(Collectors.toSet());
        return matrix.scenarios().stream().map(Scenario::id).filter(id -> !ran.contains(id)).toList();
    }

}
