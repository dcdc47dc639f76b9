package dev.goodput.report.peers;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.definitions.Conventions;
import dev.goodput.definitions.Micros;
import dev.goodput.report.ChunkArrivals;
import dev.goodput.report.RequestTimes;
import dev.goodput.report.RunRecords;

/**
 * One measured request of a scenario as the peers' files see it: its event, its content chunks,
 * and its figures under one tool's convention (null when it did not succeed).
 */
record Exchange(RequestEvent event, long[] arrivalsUs, int[] chunkTokens, Conventions.Measures measures) {

    /** Succeeded with at least one content chunk: the requests the tools take latency samples from. */
    boolean ok() {
        return measures != null;
    }

    long actualSendUs() {
        return Micros.of(event.getActualSendTimeUs());
    }

    long completionUs() {
        return Micros.of(event.getCompletionTimeUs());
    }

    /** The error as one line: class, HTTP status, message. */
    String error() {
        if (ok()) {
            return "";
        }
        final StringBuilder sb = new StringBuilder(event.getStatus().name().toLowerCase(Locale.ROOT));
        if (event.getErrorClass() != null) {
            sb.append(' ').append(event.getErrorClass());
        }
        if (event.getErrorMessage() != null) {
            sb.append(": ").append(event.getErrorMessage());
        }
        return sb.toString();
    }

    /**
     * The measured requests of every scenario (warm-up left out, a request published twice counted
     * once), in order of actual send, under {@code tool}'s convention.
     */
    static Map<String, List<Exchange>> byScenario(RunRecords run, Conventions.Tool tool) {
        final Map<String, RequestEvent> seen = new LinkedHashMap<>();
        run.requests().stream().filter(r -> !r.getWarmup()).forEach(r -> seen.putIfAbsent(r.getRequestId() + "#" + r.getAttempt(), r));
        final Map<String, List<Exchange>> out = new LinkedHashMap<>();
        run.scenarioIds().forEach(id -> out.put(id, new ArrayList<>()));
        final ChunkArrivals chunks = run.chunks();
        for (RequestEvent r : seen.values()) {
            final long[] arrivals = chunks.arrivals(r.getRequestId());
            final boolean ok = r.getStatus() == RequestStatus.OK && r.getFirstChunkTimeUs() != null && r.getLastChunkTimeUs() != null;
            out.computeIfAbsent(r.getScenarioId(), k -> new ArrayList<>()).add(new Exchange(r, arrivals,
                    chunks.tokens(r.getRequestId()), ok ? Conventions.measure(tool, RequestTimes.of(r), arrivals) : null));
        }
        out.values().forEach(l -> l.sort(Comparator.comparingLong(Exchange::actualSendUs)));
        return out;
    }

    /** The run's scenarios without a measured (not warm-up) request: those {@link #byScenario} gives no exchange. */
    static Set<String> unmeasured(RunRecords run) {
        final Set<String> out = new LinkedHashSet<>(run.scenarioIds());
        run.requests().stream().filter(r -> !r.getWarmup()).forEach(r -> out.remove(r.getScenarioId()));
        return out;
    }

    /** Seconds from the first actual send to the last completion: the benchmark duration the tools report. */
    static double durationS(List<Exchange> xs) {
        if (xs.isEmpty()) {
            return 0;
        }
        final long first = xs.stream().mapToLong(Exchange::actualSendUs).min().orElseThrow();
        final long last = xs.stream().mapToLong(Exchange::completionUs).max().orElseThrow();
        return Math.max(0, last - first) / 1e6;
    }
}
