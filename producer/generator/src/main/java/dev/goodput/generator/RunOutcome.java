package dev.goodput.generator;

import java.io.PrintStream;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

import dev.goodput.avro.RunSummary;
import dev.goodput.generator.load.ErrorClasses;

/**
 * What a generator's scenarios came to, for its exit code: a run in which requests were sent and
 * none succeeded measured nothing, and says so with its top error classes (exit 1).
 */
public final class RunOutcome {

    /** Error classes shown when nothing succeeded. */
    static final int TOP = 3;

    private long requests;
    private long ok;
    private final ErrorClasses errors = new ErrorClasses();
    /** Scenarios with a request past their warm-up: each has a window in the pipeline's output. */
    private final Set<String> measuredScenarios = new LinkedHashSet<>();

    synchronized void add(RunSummary s, ErrorClasses scenarioErrors) {
        requests += s.getRequests();
        ok += s.getRequestsOk();
        errors.addAll(scenarioErrors);
        if (s.getRequests() > s.getWarmupRequests()) {
            measuredScenarios.add(s.getScenarioId().toString());
        }
    }

    /** The scenarios that measured at least one request (warm-up excluded), so far. */
    public synchronized Set<String> measuredScenarios() {
        return Set.copyOf(measuredScenarios);
    }

    /** 0, or 1 after printing the top error classes with one example each when no request succeeded. */
    public synchronized int exitCode(PrintStream out) {
        if (requests == 0 || ok > 0) {
            return 0;
        }
        out.printf(Locale.ROOT, "FAILED: none of the run's %d requests succeeded. Top error classes:%n", requests);
        errors.lines(TOP).forEach(out::println);
        out.flush();
        return 1;
    }
}
