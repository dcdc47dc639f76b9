package dev.goodput.assembly;

import java.util.Map;

import dev.goodput.assembly.time.LogClock;

/**
 * The per-partition decision machine of the streams-app's stage A, free of Kafka and Avro: records
 * in (a chunk of a token event, a request event, a control record, each with its log time; a sweep;
 * a heartbeat), decisions out ({@link Decisions}: refusals with reasons, verdicts, orphans, partial
 * aggregates of windows, watermarks), and its state in four {@link ByteStore}s, so a new engine over
 * the same stores takes up exactly where the last one left. The streams-app's request assembler is
 * its adapter: it decodes, calls and forwards; a test or a benchmark drives it alone.
 *
 * <p>What it decides: the two log clocks and lateness ({@link LogClock}), the join of each
 * request's chunks with its request event in an order that makes every outcome a function of the log
 * alone ({@link RequestJoin}), duplicates ({@link FinishedRequests}), the requests in flight
 * ({@link InflightRequests}), orphans, each finished request's verdict ({@link Verdict}), what it and
 * each refusal add to their windows ({@link PartialAggregates}), and the watermark.
 *
 * <p>Restoring takes two steps, because the journal of partial aggregates holds finished ids and
 * carries clocks too: the constructor loads the clocks and the finished ids, then {@link #start} adds
 * up the journal, loads the requests in flight and moves the clocks up to what both carried. Not
 * thread-safe: one per partition.
 */
public final class RequestEngine<R> {

    private final EngineSettings config;
    private final RequestRules<R> rules;
    private final Decisions<R> decisions;
    private final AssemblerProgress progress;
    private final LogClock clock;
    private final LiveStore<RequestState> inflightStore;
    private final LiveStore<FinishedRequests.Bucket> finishedStore;
    private final LiveStore<long[]> progressStore;
    private final InflightRequests inflight;
    private final FinishedRequests finished;
    private final PartialAggregates partials;
    private final RequestJoin<R> join;
    /** Journal entries written by the end of the last record: an entry written for a record carries the clocks. */
    private long writesBefore;
    /** Log time of the record being processed. */
    private long currentLogUs = Long.MIN_VALUE;
    /**
     * The next sweeps, on a grid of event time (every {@link #SWEEP_US}, every {@link #orphanSweepUs}):
     * a sweep happens at the first record at which both clocks have reached the next point, so when
     * it happens is a function of the log, and a restart (which finds the next point from the restored
     * clocks) sweeps where one run would have.
     */
    private long nextSweepUs = Long.MIN_VALUE;
    private long nextOrphanSweepUs = Long.MIN_VALUE;
    private final long orphanSweepUs;
    static final long SWEEP_US = 100_000;

    /**
     * Loads the clocks and the finished ids from the stores; call {@link #start} before the first record.
     *
     * @param inflight the requests in flight, by slot
     * @param finished the ids of requests finished lately, by 100 ms of completion
     * @param progress the log clocks and the last watermark
     * @param partials the journal of what finished requests and refusals added to their windows since they were last sent
     */
    public RequestEngine(EngineSettings config, RequestRules<R> rules, Decisions<R> decisions,
                         ByteStore inflight, ByteStore finished, ByteStore progress, ByteStore partials) {
        this.config = config;
        this.rules = rules;
        this.decisions = decisions;
        this.progressStore = new LiveStore<>(progress, LiveStore.LONGS);
        this.progress = new AssemblerProgress(progressStore, config.windowUs(), config.graceUs());
        this.clock = this.progress.clock();
        // the in-flight slots carry the log clocks, and the finished ids are read before the slots,
        // whose finished ones are free
        this.inflightStore = new LiveStore<>(inflight, RequestState.codec(this.progress.clocks()));
        this.finishedStore = new LiveStore<>(finished, FinishedRequests.CODEC);
        this.inflight = new InflightRequests(inflightStore);
        finishedStore.load();
        this.finished = new FinishedRequests(finishedStore, this.inflight::gone);
        this.partials = new PartialAggregates(partials, config.windowUs(), config.graceUs(), this.progress.clocks(), this.finished);
        // orphans expire after minutes: a pass over every in-flight request each 1/60 of that is plenty
        this.orphanSweepUs = Math.max(1_000_000, config.orphanExpiryUs() / 60);
        this.join = new RequestJoin<>(config, rules, clock, this.inflight, this.finished, new RequestJoin.Outcomes<R>() {
            @Override
            public void refuse(Refusal refusal) {
                decisions.refuse(refusal);
            }

            @Override
            public void finish(String id, RequestState s, R event) {
                RequestEngine.this.finish(id, s, event);
            }

            @Override
            public void orphaned(String id, RequestState s) {
                RequestEngine.this.orphaned(id, s, true);
            }
        });
    }

    /**
     * Adds up the journal of partial aggregates (which holds the ids of the requests it counts), loads
     * the requests in flight (a slot of a finished request is free) and moves the clocks up to those
     * the journal's entries and the slots were written with.
     */
    public void start() {
        partials.load();
        inflight.load(finished::contains);
        progress.carried(partials.carriedClocks());
        progress.carried(inflight.carriedClocks());
        final long both = clock.both();
        if (both != LogClock.NONE) {
            nextSweepUs = next(both, SWEEP_US);
            nextOrphanSweepUs = next(both, orphanSweepUs);
        }
    }

    /** The first point of a grid of {@code stepUs} after {@code us}. */
    private static long next(long us, long stepUs) {
        return (Math.floorDiv(us, stepUs) + 1) * stepUs;
    }

    public int inflight() {
        return inflight.size();
    }

    /** Windows with a partial aggregate not yet handed over. */
    public int openWindows() {
        return partials.size();
    }

    /**
     * A record's place in its log ({@code token}: the token topic, else the request topic) moves that
     * topic's clock, whatever else becomes of the record; returns the clock, the record's log time.
     */
    public long logTime(boolean token, long timestampMs) {
        currentLogUs = token ? progress.token(timestampMs) : progress.request(timestampMs);
        return currentLogUs;
    }

    /** An end-of-run marker at the last {@link #logTime}: that topic has all of a run's events. */
    public void endOfRun(boolean token) {
        progress.endOfRun(token, currentLogUs);
        nextSweepUs = Long.MIN_VALUE;
        nextOrphanSweepUs = Long.MIN_VALUE;
    }

    /** One chunk of a token event at the last {@link #logTime}. */
    public void chunk(Chunk chunk) {
        join.token(chunk, currentLogUs);
    }

    /** A request event at the last {@link #logTime}, with the bytes it came in and its record's timestamp. */
    public void request(R event, byte[] bytes, long timestampMs) {
        join.request(event, bytes, timestampMs, currentLogUs);
    }

    /**
     * Sweeps each 100 ms of the time both log clocks have reached: everything a sweep does needs both
     * (a waiting request has its request event, and it waits on the token log). Called after every
     * record, whatever became of it, so a sweep falls at the same record in every run.
     */
    public void maybeSweep() {
        final long both = clock.both();
        if (both != LogClock.NONE && both >= nextSweepUs) {
            sweep();
        }
    }

    /**
     * The watermark now ({@link LogClock#watermark}: both log clocks, held back by every request in
     * flight at its earliest on-time event, so the windows of a long request's gaps stay open until it
     * finishes).
     */
    public long watermark() {
        return clock.watermark(inflight.hold());
    }

    /** The last watermark handed over ({@link Decisions#watermark}). */
    public long lastWatermark() {
        return progress.lastWatermark();
    }

    /**
     * A refused record, counted under its contract and scenario in the window of its log time: the
     * window records say what was refused while they were open. That window is open, since no
     * watermark passes the clock of the record's own topic. The adapter counts what it refuses itself
     * (an unreadable record, a null key) and what the engine refuses, once it has read the record's
     * contract and scenario; an orphan at its last chunk's log time.
     */
    public void countRefused(String contractId, String scenarioId, long logUs, String reason) {
        partials.refused(contractId, scenarioId, logUs, reason);
    }

    /**
     * A heartbeat: hands over the partial aggregates of every window ({@code all}) or only of those the
     * watermark about to be sent may close, in key order, then the watermark if it moved; then every
     * change goes into the stores. How often, and when {@code all}, is the adapter's (wall-clock) choice;
     * what is handed over is a function of the log.
     */
    public void heartbeat(boolean all) {
        try {
            final long wm = watermark();
            if (partials.flush(all ? Long.MAX_VALUE : wm, decisions::partial)) {
                progress.saveClocks(); // the deleted entries may have been the ones that carried the clocks
            }
            if (progress.advance(wm)) {
                decisions.watermark(wm);
            }
        } finally {
            writeBack();
        }
    }

    /**
     * At the end of a record: the clocks are written if they moved and no entry written for the record
     * carries them (a journal entry or an in-flight slot), then every change goes into the stores.
     */
    public void endRecord() {
        final long writes = partials.writes();
        progress.save(writes != writesBefore || inflightStore.pending());
        writesBefore = writes;
        writeBack();
    }

    /** Every change since the last call into the stores (a record's end and a heartbeat call it; a commit may follow). */
    private void writeBack() {
        LiveStore.writeBack(inflightStore, finishedStore, progressStore);
    }

    @Override
    public String toString() {
        return inflight.size() + " in-flight requests, " + progress;
    }

    /**
     * Judges a request whose slot is free ({@link Verdict}), hands its verdict over and adds it to its
     * windows' partial aggregates, whose journal entry holds its id among the finished ones.
     */
    @SuppressWarnings("unchecked")
    private void finish(String id, RequestState s, R event) {
        inflight.finish(id);
        final R r = event != null ? event : s.request != null ? (R) s.request : rules.decode(s.requestBytes);
        final RequestFacts f = rules.facts(r);
        final Verdict v = Verdict.of(f, s.seenCount(), rules.objectives(f.contractId()), rules.qualityFloor());
        decisions.verdict(id, r, s, v);
        final long[][] kept = v.measured() ? s.gaps() : new long[][] {new long[0], new long[0]};
        partials.add(new FinishedRequest(id, f.contractId(), f.scenarioId(), f.completionUs(), f.intendedUs(), s.hold(),
                s.requestLogUs(), f.promptTokens(), v.measured() ? f.cachedTokens() : -1, v.outcome(), kept[0], kept[1]));
    }

    /**
     * Finishes requests whose missing token events can no longer come on time, and gives up on token
     * events whose request event never came (orphans: {@code orphanExpiry} of log time after their last).
     */
    private void sweep() {
        final long both = clock.both();
        nextSweepUs = next(both, SWEEP_US);
        // once both log clocks are a window and its grace past a completion, any event of that request
        // is late; its id need not be kept
        finished.expire(both - config.windowUs() - config.graceUs());
        for (Map.Entry<String, RequestState> e : inflight.due(clock, clock.tokenLogUs())) {
            finish(e.getKey(), e.getValue(), null);
        }
        // orphans (token events whose request event never came) expire after minutes: a pass over
        // every in-flight request each 1/60 of that is plenty, and each 100 ms of event time is not
        final long orphan = config.orphanExpiryUs();
        if (both >= nextOrphanSweepUs) {
            nextOrphanSweepUs = next(both, orphanSweepUs);
            // A generator publishes every request event, then ticks through the last windows' grace, then marks the
            // end of its run on both topics: once both markers are read, a request whose chunks stopped more than a
            // grace before them has no request event to come. Nothing else moves log time at a run's end, so without
            // this an orphan would hold the run's last windows open for good.
            final long ended = progress.ended();
            for (String id : inflight.orphans(both, orphan, ended == LogClock.NONE ? LogClock.NONE : ended - config.graceUs())) {
                final RequestState s = inflight.get(id);
                orphaned(id, s, s.lastChunkLogUs + orphan <= both);
            }
        }
    }

    /** Token events whose request event did not come in time ({@code expired}) or by the run's end: forgotten. */
    private void orphaned(String id, RequestState s, boolean expired) {
        decisions.orphaned(id, s.contractId, s.scenarioId, s.lastChunkLogUs, s.seenCount + " chunk(s), the last logged at "
                + s.lastChunkLogUs + " us, and no request event " + (expired ? "within " + config.orphanExpiry()
                + " of log time (--orphan-expiry)" : "before its run's end-of-run marker"));
        inflight.forget(id);
    }
}
