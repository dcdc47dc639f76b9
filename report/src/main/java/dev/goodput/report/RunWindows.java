package dev.goodput.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.Micros;
import dev.goodput.keys.Keys;

/**
 * Which windows hold a run. Windows carry no run id; the run's request events and verdicts do. A
 * window holds the run when, under the run's contract and scenario, it overlaps the time one of the
 * run's measured requests was live in a window's sense: from its first chunk (its ITL gaps are dated
 * by their chunks) to its completion (which places the request), or, for a request without chunks
 * (a failure, a span), its completion alone; or lies within a window and its grace after the run's
 * last completion, where its late events are counted. Never the run's time range from its first
 * intended send, which other runs of the same scenario may share (one 500 s span took two other
 * runs in), and no absurd date can stretch it: the door refuses one.
 */
final class RunWindows {
    private RunWindows() {
    }

    /** The run's live stretches per contract and scenario, merged where they overlap, in time order: {starts, ends}. */
    static Map<Keys.Scenario, long[][]> stretches(String runId, List<RequestEvent> requests, List<RequestVerdict> verdicts) {
        final Map<Keys.Scenario, List<long[]>> raw = new LinkedHashMap<>();
        for (RequestEvent e : requests) {
            if (e.getRunId().equals(runId) && !e.getWarmup()) {
                final long done = Micros.of(e.getCompletionTimeUs());
                final long from = e.getContentChunks() > 0 && e.getFirstChunkTimeUs() != null
                        ? Math.min(done, Micros.of(e.getFirstChunkTimeUs())) : done;
                raw.computeIfAbsent(new Keys.Scenario(e.getContractId(), e.getScenarioId()), k -> new ArrayList<>())
                        .add(new long[] {from, done});
            }
        }
        for (RequestVerdict v : verdicts) {
            if (v.getRunId().equals(runId)) {
                final long done = Micros.of(v.getCompletionTimeUs());
                raw.computeIfAbsent(new Keys.Scenario(v.getContractId(), v.getScenarioId()), k -> new ArrayList<>())
                        .add(new long[] {done, done});
            }
        }
        final Map<Keys.Scenario, long[][]> out = new LinkedHashMap<>();
        raw.forEach((k, list) -> {
            list.sort((a, b) -> Long.compare(a[0], b[0]));
            final List<long[]> merged = new ArrayList<>();
            for (long[] s : list) {
                final long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
                if (last != null && s[0] <= last[1]) {
                    last[1] = Math.max(last[1], s[1]);
                } else {
                    merged.add(new long[] {s[0], s[1]});
                }
            }
            final long[][] se = new long[2][merged.size()];
            for (int i = 0; i < merged.size(); i++) {
                se[0][i] = merged.get(i)[0];
                se[1][i] = merged.get(i)[1];
            }
            out.put(k, se);
        });
        return out;
    }

    /** Whether window {@code w} holds the run whose stretches of its scenario are {@code se} (null: none). */
    static boolean holds(long[][] se, WindowStats w) {
        if (se == null || se[0].length == 0) {
            return false;
        }
        final long start = Micros.of(w.getWindowStartUs());
        final long end = Micros.of(w.getWindowEndUs());
        final long lastEnd = se[1][se[1].length - 1];
        if (start > lastEnd) {
            // after the run's last completion: only within a window and its grace, for its late events
            return start <= lastEnd + (end - start) + (w.getGraceUs() == null ? 0 : w.getGraceUs());
        }
        // the last stretch starting before the window's end: it holds the window when it ends at or after its start
        int lo = 0;
        int hi = se[0].length;
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            if (se[0][mid] < end) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo > 0 && se[1][lo - 1] >= start;
    }
}
