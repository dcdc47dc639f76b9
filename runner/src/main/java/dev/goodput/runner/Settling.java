package dev.goodput.runner;

import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

import dev.goodput.topics.Keys;

/**
 * When a demo's run has reached its report: every window seen is final and priced, every scenario that
 * measured requests has had a priced window, and nothing new came for a quiet spell. A table that has
 * seen nothing is not settled while a scenario measured requests: a streams-app lagging past the closing
 * wait on a loaded machine once gave a report without a scenario's windows, and exit 0.
 */
final class Settling {

    /** Windows seen (live or final) with no final, priced row yet. */
    private final Set<Keys.Window> unsettled = new HashSet<>();
    /** Scenarios with at least one final, priced window. */
    private final Set<String> priced = new HashSet<>();
    private long lastRecordNanos;

    Settling(long nowNanos) {
        this.lastRecordNanos = nowNanos;
    }

    synchronized void windowSeen(Keys.Window w, long nowNanos) {
        unsettled.add(w);
        lastRecordNanos = nowNanos;
    }

    /** A final window and its cost record have both arrived. */
    synchronized void windowPriced(Keys.Window w, long nowNanos) {
        unsettled.remove(w);
        priced.add(w.scenarioId());
        lastRecordNanos = nowNanos;
    }

    /** Any record came (a cost of a window not shown, say): the quiet spell starts again. */
    synchronized void recordSeen(long nowNanos) {
        lastRecordNanos = nowNanos;
    }

    synchronized boolean settled(Set<String> measuredScenarios, long nowNanos, long quietNanos) {
        return unsettled.isEmpty() && priced.containsAll(measuredScenarios) && nowNanos - lastRecordNanos > quietNanos;
    }

    /** Windows still open or unpriced. */
    synchronized int openWindows() {
        return unsettled.size();
    }

    /** Scenarios that measured requests and have no priced window yet, in order. */
    synchronized Set<String> scenariosWithoutWindows(Set<String> measuredScenarios) {
        final Set<String> missing = new TreeSet<>(measuredScenarios);
        missing.removeAll(priced);
        return missing;
    }
}
