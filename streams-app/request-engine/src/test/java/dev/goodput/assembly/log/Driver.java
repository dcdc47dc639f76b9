package dev.goodput.assembly.log;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import dev.goodput.assembly.Chunk;
import dev.goodput.assembly.Decisions;
import dev.goodput.assembly.EngineSettings;
import dev.goodput.assembly.MemoryByteStore;
import dev.goodput.assembly.Refusal;
import dev.goodput.assembly.RequestEngine;
import dev.goodput.assembly.RequestState;

/**
 * Drives a {@link RequestEngine} over a log of {@link Event}s as the streams-app's adapter does (log
 * time, the record, a sweep, the write-back; a heartbeat's watermark after every record), holding a
 * finished request's id as the adapter's journal would. It writes down every decision, and can restore
 * a new engine from a snapshot of the stores before any record.
 */
public final class Driver {

    public static final EngineSettings SETTINGS = new EngineSettings(Duration.ofSeconds(10), Duration.ofSeconds(5),
            Duration.ofSeconds(60));

    /** What a run decided, in the order it decided it, and the watermark after each record. */
    public record Result(List<String> decisions, List<Long> watermarks, int inflight) {
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
    private RequestEngine<TestRequest> engine;
    /** The event being processed, for a refusal's line. */
    private String current;

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
        return new Result(d.decisions, watermarks, d.engine.inflight());
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
            }

            @Override
            public void finish(String id, RequestState s, TestRequest r) {
                engine.finished().add(id, r.completionUs());
                finishedCount++;
                if (writeDown) {
                    decisions.add("finished " + id + " with " + s.seenCount() + " of " + r.contentChunks() + " chunks, hold "
                            + s.hold() + ", gaps " + Arrays.deepToString(s.gaps()));
                }
            }

            @Override
            public void orphaned(String id, String contractId, String scenarioId, long lastChunkLogUs, String message) {
                decisions.add("orphaned " + id + " of " + contractId + "/" + scenarioId + " last logged at " + lastChunkLogUs);
            }
        }, inflight, finished, progress);
        engine = e;
        e.start();
        return e;
    }

    /** A new engine over a copy of the stores as they are: what a restart after a commit sees. */
    public void restore() {
        inflight = inflight.snapshot();
        finished = finished.snapshot();
        progress = progress.snapshot();
        engine = open();
    }

    public void process(Event event) {
        engine.logTime(event.tokenTopic(), event.logMs());
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
            engine.request(r.request(), r.bytes(), r.logMs());
        }
        engine.maybeSweep();
        engine.endRecord(false);
    }

    private void join(Event.ChunkEvent c) {
        chunk.event = c;
        if (writeDown) {
            current = "chunk " + c.index() + " of " + c.requestId();
        }
        engine.chunk(chunk);
    }

    /** The watermark a heartbeat would send now, recorded as sent. */
    public long heartbeat() {
        final long wm = engine.watermark();
        engine.advance(wm);
        engine.writeBack();
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
