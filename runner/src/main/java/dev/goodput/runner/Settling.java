package dev.goodput.runner;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.goodput.keys.Keys;

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

    /**
     * What is still missing, as the demo's warning says it, or empty when nothing is: windows seen but
     * not final and priced, and the scenarios that measured requests without a priced window (in order).
     */
    synchronized String missing(Set<String> measuredScenarios) {
        final Set<String> without = new TreeSet<>(measuredScenarios);
        without.removeAll(priced);
        final List<String> parts = new ArrayList<>();
        if (!unsettled.isEmpty()) {
            parts.add(unsettled.size() + " window(s) of this run had not closed and been priced");
        }
        if (!without.isEmpty()) {
            parts.add("no priced window of " + String.join(", ", without));
        }
        return String.join("; ", parts);
    }
}
