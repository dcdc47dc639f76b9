package dev.goodput.assembly.log;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.goodput.assembly.Chunk;
import dev.goodput.assembly.Decisions;
import dev.goodput.assembly.EngineSettings;
import dev.goodput.assembly.MemoryByteStore;
import dev.goodput.assembly.Refusal;
import dev.goodput.assembly.RequestEngine;
import dev.goodput.assembly.RequestState;
import dev.goodput.assembly.Verdict;
import dev.goodput.assembly.WindowAgg;
import dev.goodput.keys.Keys;

/**
 * Drives a {@link RequestEngine} over a log of {@link Event}s as the streams-app's adapter does (log
 * time, the record, a sweep, the end of the record; a heartbeat after every record, which hands over
 * only the windows its watermark may close, so partial aggregates stay in the journal across records),
 * counting refusals of known contracts in their windows. It writes down every decision, merges the
 * partial aggregates handed over by window as the merger would, and can restore a new engine from a
 * snapshot of the stores before any record.
 */
public final class Driver {

    public static final EngineSettings SETTINGS = new EngineSettings(Duration.ofSeconds(10), Duration.ofSeconds(5),
            Duration.ofSeconds(60));

    /**
     * What a run decided, in the order it decided it, the watermark after each record, and each window's
     * partial aggregates merged (hex of its layout, by window key) once a last heartbeat handed all over.
     */
    public record Result(List<String> decisions, List<Long> watermarks, int inflight, Map<String, String> windows) {
    }

    private final List<String> decisions = new ArrayList<>();
    /** Whether decisions are written down; a benchmark counts them only. */
    private final boolean writeDown;
    private long finishedCount;
    private long refusedCount;
    private final EventChunk chunk = new EventChunk();
    private MemoryByteStore inflight = new MemoryByteStore();
    private MemoryByteStore finished = new MemoryByteStore();
    private MemoryByteStore progress = new MemoryByteStore();
    private MemoryByteStore partials = new MemoryByteStore();
    private final Map<String, WindowAgg> windows = new TreeMap<>();
    private RequestEngine<TestRequest> engine;
    /** The event being processed, for a refusal's line. */
    private String current;
    /** The contract and scenario of the event being processed, and its log time: where a refusal of it is counted. */
    private String currentContract;
    private String currentScenario;
    private long currentLogUs;

    public Driver() {
        this(true);
    }

    public Driver(boolean writeDown) {
        this.writeDown = writeDown;
        engine = open();
    }

    /** Runs {@code log}, restoring a new engine from a snapshot of the stores before each record whose index is in {@code cuts}. */
    public static Result run(List<Event> log, Set<Integer> cuts) {
        final Driver d = new Driver();
        final List<Long> watermarks = new ArrayList<>(log.size());
        for (int i = 0; i < log.size(); i++) {
            if (cuts.contains(i)) {
                d.restore();
            }
            d.process(log.get(i));
            watermarks.add(d.heartbeat());
        }
        final int inflight = d.engine.inflight();
        d.engine.heartbeat(true);
        final Map<String, String> windows = new TreeMap<>();
        d.windows.forEach((k, a) -> windows.put(k, HexFormat.of().formatHex(WindowAgg.CODEC.encode(a))));
        return new Result(d.decisions, watermarks, inflight, windows);
    }

    /** Requests finished so far. */
    public long finished() {
        return finishedCount;
    }

    /** Events refused so far. */
    public long refused() {
        return refusedCount;
    }

    private RequestEngine<TestRequest> open() {
        final RequestEngine<TestRequest> e = new RequestEngine<>(SETTINGS, TestRequest.RULES, new Decisions<>() {
            @Override
            public void refuse(Refusal r) {
                refusedCount++;
                if (writeDown) {
                    decisions.add("refused " + r.reason() + ": " + current);
                }
                count(currentContract, currentScenario, currentLogUs, r.reason());
            }

            @Override
            public void verdict(String id, TestRequest r, RequestState s, Verdict v) {
                finishedCount++;
                if (writeDown) {
                    decisions.add("finished " + id + " with " + s.seenCount() + " of " + r.contentChunks() + " chunks, hold "
                            + s.hold() + ", gaps " + Arrays.deepToString(s.gaps()) + ", " + v);
                }
            }

            @Override
            public void orphaned(String id, String contractId, String scenarioId, long lastChunkLogUs, String message) {
                decisions.add("orphaned " + id + " of " + contractId + "/" + scenarioId + " last logged at " + lastChunkLogUs);
                count(contractId, scenarioId, lastChunkLogUs, "orphaned");
            }

            @Override
            public void partial(WindowAgg a) {
                if (!writeDown) {
                    return; // a benchmark measures the engine, not the merger downstream
                }
                windows.computeIfAbsent(new Keys.Window(a.contractId, a.scenarioId, a.startUs).text(),
                        k -> new WindowAgg(a.contractId, a.scenarioId, a.startUs)).totals.add(a.totals);
            }

            @Override
            public void watermark(long watermarkUs) {
                // the heartbeat's return value: the driver records every record's
            }
        }, inflight, finished, progress, partials);
        engine = e;
        e.start();
        return e;
    }

    /** As the adapter does: a refusal of a contract it knows is counted in the window of its log time. */
    private void count(String contractId, String scenarioId, long logUs, String reason) {
        if (contractId != null && TestRequest.CONTRACTS.contains(contractId)) {
            engine.countRefused(contractId, scenarioId, logUs, reason);
        }
    }

    /** A new engine over a copy of the stores as they are: what a restart after a commit sees. */
    public void restore() {
        inflight = inflight.snapshot();
        finished = finished.snapshot();
        progress = progress.snapshot();
        partials = partials.snapshot();
        engine = open();
    }

    public void process(Event event) {
        currentLogUs = engine.logTime(event.tokenTopic(), event.logMs());
        currentContract = null;
        currentScenario = null;
        if (event instanceof Event.Control c) {
            if (c.endOfRun()) {
                engine.endOfRun(c.tokenTopic());
            }
        } else if (event instanceof Event.ChunkEvent c) {
            join(c);
        } else if (event instanceof Event.Run run) {
            for (Event.ChunkEvent c : run.chunks()) {
                join(c);
            }
        } else if (event instanceof Event.RequestEvent r) {
            if (writeDown) {
                current = "request " + r.request().id();
            }
            currentContract = r.request().contractId();
            currentScenario = r.request().scenarioId();
            engine.request(r.request(), r.bytes(), r.logMs());
        }
        engine.maybeSweep();
        engine.endRecord();
    }

    private void join(Event.ChunkEvent c) {
        chunk.event = c;
        currentContract = c.contractId();
        currentScenario = c.scenarioId();
        if (writeDown) {
            current = "chunk " + c.index() + " of " + c.requestId();
        }
        engine.chunk(chunk);
    }

    /** A heartbeat that hands over the windows its watermark may close; returns that watermark. */
    public long heartbeat() {
        final long wm = engine.watermark();
        engine.heartbeat(false);
        return wm;
    }

    public RequestEngine<TestRequest> engine() {
        return engine;
    }

    /** A chunk event as the engine reads it. */
    private static final class EventChunk implements Chunk {
        Event.ChunkEvent event;

        @Override
        public boolean skipped() {
            return event.warmup();
        }

        @Override
        public String requestId() {
            return event.requestId();
        }

        @Override
        public int chunkIndex() {
            return event.index();
        }

        @Override
        public long arrivalUs() {
            return event.arrivalUs();
        }

        @Override
        public long timestampMs() {
            return event.logMs();
        }

        @Override
        public String knownContract() {
            return TestRequest.CONTRACTS.contains(event.contractId()) ? event.contractId() : null;
        }

        @Override
        public String contractText() {
            return event.contractId();
        }

        @Override
        public boolean contractIs(String contractId) {
            return contractId.equals(event.contractId());
        }

        @Override
        public String scenarioId() {
            return event.scenarioId();
        }
    }
}
