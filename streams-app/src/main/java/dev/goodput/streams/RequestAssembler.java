package dev.goodput.streams;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.TokenEvent;
import dev.goodput.failure.DeadLetterHandler;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.streams.time.LogClock;
import dev.goodput.topics.Control;
import dev.goodput.topics.Keys;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage A, one instance per input partition: assembles each request from its token events (runs of
 * chunks, {@link dev.goodput.records.TokenRuns}) and its request event (both keyed by request id, so
 * co-partitioned), computes its metrics and verdicts,
 * and forwards
 * <ul>
 *   <li>a {@link RequestVerdict} to the verdicts sink, and</li>
 *   <li>its metrics and ITL gaps into this partition's partial aggregate of its window, which goes
 *       to the window merger with a heartbeat ({@link Sample.Partial}),</li>
 * </ul>
 * so the per-token and per-request work is spread over every input partition, and what travels on
 * is one record per (contract, scenario, window) and heartbeat (200 ms), whatever the request
 * rate. Invalid, unknown-contract, mixed-contract and late events go to the DLQ with their original
 * bytes. Event time comes from the events' own fields; no wall clock decides a result.
 *
 * <p>This is the adapter between Kafka Streams and the parts that decide: {@link TokenInput} (the
 * chunk of a run being joined), {@link RequestJoin} (what joins and what is refused),
 * {@link InflightRequests}, {@link PartialAggregates}, {@link Verdicts}, {@link Refusals} and
 * {@link AssemblerProgress} (the log clocks of {@code streams.time} and the last watermark).
 */
final class RequestAssembler implements Processor<String, byte[], String, Out> {

    static final String NAME = "request-assembler";
    /** v2: keyed by slot, the request id in the state ({@link InflightRequests}); v1 was keyed by request id. */
    static final String STORE = "inflight-requests-v2";
    static final String PROGRESS = "assembler-progress";
    /**
     * v5: a journal of additions, up to {@link PartialAggregates#BATCH} to an entry that names its
     * window once, each request's id with its outcome and the log clocks at the end (v4: neither;
     * v3: each addition named its window; v2: one addition an entry; v1: whole aggregates). See
     * {@link GoodputTopology#SAMPLES} on names.
     */
    static final String PARTIALS = "assembler-partials-v5";
    /**
     * The store of {@link FinishedRequests}: a request or token event that comes again (an
     * at-least-once mirror, a re-publish) is refused as {@code duplicate} instead of being counted
     * twice. Ids are kept until event time is a window and its grace past their completion; later
     * than that, an event of the request is refused as {@code late} anyway. Until its window's partial
     * aggregate is sent, an id is carried by the journal entry ({@link #PARTIALS}) instead.
     */
    static final String FINISHED = "assembler-finished";
    static final String STAGE = "streams-app/request-assembler";
    /** Watermarks go to every merger partition; the partitioner recognises this key. */
    static final String WATERMARK_KEY = "__watermark__";
    /** Partials a heartbeat sends every time; above this, the others wait for the live interval. */
    static final int LIVE_PARTIALS = 8;

    private static final Logger LOG = LoggerFactory.getLogger(RequestAssembler.class);

    private final StreamsSettings config;
    private final Deserializer<TokenEvent> tokens;
    private final Deserializer<RequestEvent> requests;
    private final TokenInput token;
    private final RequestReader requestReader;
    private ProcessorContext<String, Out> context;
    private InflightRequests inflight;
    private PartialAggregates partials;
    private FinishedRequests finished;
    private AssemblerProgress progress;
    private LogClock clock;
    private LiveStore<RequestState> inflightStore;
    private LiveStore<FinishedRequests.Bucket> finishedStore;
    private LiveStore<long[]> progressStore;
    private Refusals refusals;
    private RequestJoin join;
    private EventsMetric events;
    private int partition;
    /** Log time of the record being processed: where a refusal of it is counted. */
    private long currentLogUs = Long.MIN_VALUE;
    private long nextSweepUs = Long.MIN_VALUE;
    private long nextOrphanSweepUs = Long.MIN_VALUE;
    /** Log times of the last end-of-run markers read on this partition's token and request topics. */
    private long endOfRunTokenUs = LogClock.NONE;
    private long endOfRunRequestUs = LogClock.NONE;
    /** Wall-clock time of the last heartbeat that sent every partial aggregate. */
    private long lastPartialFlushMs;

    RequestAssembler(StreamsSettings config, SchemaRegistryClient registry, Deserializer<TokenEvent> tokens,
                     Deserializer<RequestEvent> requests, Serializer<TokenEvent> singles) {
        this.config = config;
        this.tokens = tokens;
        this.requests = requests;
        this.token = new TokenInput(new RunReader(registry), tokens, singles, config.topics().tokens(),
                config.contracts().keySet(), config.selection().runId());
        this.requestReader = new RequestReader(registry);
    }

    @Override
    public void init(ProcessorContext<String, Out> ctx) {
        this.context = ctx;
        this.progressStore = new LiveStore<>(ctx.getStateStore(PROGRESS), WindowMerger.LONGS_CODEC);
        this.progress = new AssemblerProgress(progressStore, config.windowUs(), config.graceUs());
        this.clock = progress.clock();
        // the in-flight slots and the journal entries carry the log clocks, and the journal the
        // finished ids: the journal is read before the slots, whose finished ones are free
        this.inflightStore = new LiveStore<>(ctx.getStateStore(STORE), RequestState.codec(progress.clocks()));
        this.finishedStore = new LiveStore<>(ctx.getStateStore(FINISHED), FinishedRequests.CODEC);
        this.inflight = new InflightRequests(inflightStore);
        finishedStore.load();
        this.finished = new FinishedRequests(finishedStore, inflight::gone);
        this.partials = new PartialAggregates(ctx.getStateStore(PARTIALS), config.windowUs(), config.graceUs(),
                progress.clocks(), finished);
        partials.load();
        inflight.load(finished::contains);
        progress.carried(partials.carriedClocks());
        progress.carried(inflight.carriedClocks());
        this.refusals = new Refusals(config, tokens, requests, ctx, partials);
        this.join = new RequestJoin(config, clock, inflight, finished, token, new RequestJoin.Outcomes() {
            @Override
            public void refuse(Record<String, byte[]> record, String reason, String message) {
                refusals.refuse(record, reason, message);
            }

            @Override
            public void finish(String id, RequestState s, RequestEvent event) {
                RequestAssembler.this.finish(id, s, event != null ? event : requestOf(s));
            }
        });
        this.partition = ctx.taskId().partition();
        this.events = new EventsMetric(ctx.metrics(), ctx.taskId().toString());
        LOG.info("request assembler {} restored {} in-flight requests, {}", ctx.taskId(), inflight.size(), progress);
        // Heartbeat: tells the mergers how far this partition's event time has come, even when no
        // request finishes. Only the timing of heartbeats depends on the wall clock, never a result.
        ctx.schedule(Duration.ofMillis(200), PunctuationType.WALL_CLOCK_TIME, now -> {
            try {
                heartbeat(now);
            } finally {
                writeBack();
            }
        });
    }

    @Override
    public void process(Record<String, byte[]> record) {
        final long writes = partials.writes();
        try {
            handle(record);
        } finally {
            // an in-flight slot or a journal entry written for this record carries the clocks
            progress.save(partials.writes() != writes || inflightStore.pending());
            writeBack();
        }
    }

    /** Every change of this record or punctuation into the stores, before Kafka Streams may commit ({@link LiveStore}). */
    private void writeBack() {
        LiveStore.writeBack(inflightStore, finishedStore, progressStore);
    }

    private void handle(Record<String, byte[]> record) {
        final String topic = context.recordMetadata().get().topic();
        final boolean isToken = topic.equals(config.topics().tokens());
        // every record's place in the log moves its topic's clock, whatever else becomes of it
        currentLogUs = isToken ? progress.token(record.timestamp()) : progress.request(record.timestamp());
        refusals.at(currentLogUs);
        if (Control.is(record.headers())) {
            // a tick or an end-of-run marker: nothing but its place in the log, and a marker says a run's events have all come
            if (Control.END_OF_RUN.equals(Control.kind(record.headers()))) {
                if (isToken) {
                    endOfRunTokenUs = currentLogUs;
                } else {
                    endOfRunRequestUs = currentLogUs;
                }
                nextSweepUs = Long.MIN_VALUE;
                nextOrphanSweepUs = Long.MIN_VALUE;
            }
            maybeSweep();
            return;
        }
        if (record.key() == null) {
            // events are keyed by request id; without one it cannot be joined, and a null key in state fails the commit
            events.record(1);
            deadLetter(record, "null_key", "no request id key on " + topic);
            return;
        }
        if (!isToken) {
            events.record(1);
            final RequestEvent inPlace = requestReader.read(record.value());
            final RequestEvent r = inPlace != null ? inPlace : refusals.decode(record, requests, config.topics().requests());
            if (r != null) {
                join.request(record, r, currentLogUs);
            }
        } else if (token.read(record)) {
            onRun();
        } else {
            final TokenEvent run = refusals.decode(record, tokens, topic);
            if (run != null) {
                token.run(record, run);
                onRun();
            } else {
                events.record(1);
            }
        }
        maybeSweep();
    }

    /**
     * The chunks of the token event {@code token} holds, each joined exactly as if it had come alone. An error in joining one
     * chunk of a longer run refuses that chunk alone, as the processing handler refuses a record that
     * came alone, and the rest of the run goes on; a run of one fails as any record does.
     */
    private void onRun() {
        events.record(token.size());
        if (token.size() == 1) {
            join.token(currentLogUs);
            return;
        }
        for (int i = 0; i < token.size(); i++) {
            token.at(i);
            try {
                join.token(currentLogUs);
            } catch (KafkaException e) {
                throw e; // the framework's own (fencing, migration, a store): not this chunk's fault
            } catch (RuntimeException e) {
                deadLetter(token.record(), DeadLetterHandler.REASON, DeadLetterHandler.describe(e));
            }
        }
    }

    /**
     * Sweeps each 100 ms of the time both log clocks have reached: everything a sweep does needs both
     * (a waiting request has its request event, and it waits on the token log).
     */
    private void maybeSweep() {
        final long both = clock.both();
        if (both != LogClock.NONE && both >= nextSweepUs) {
            sweep();
        }
    }

    private void finish(String id, RequestState s) {
        finish(id, s, requestOf(s));
    }

    /** The request event of a request in flight: as decoded when it came, or decoded from the store after a restart. */
    private RequestEvent requestOf(RequestState s) {
        if (s.request != null) {
            return s.request;
        }
        final RequestEvent inPlace = requestReader.read(s.requestBytes);
        return inPlace != null ? inPlace : requests.deserialize(config.topics().requests(), s.requestBytes);
    }

    /**
     * Forwards the request's verdict and adds it to its windows' partial aggregates, whose journal
     * entry holds its id among the finished ones; its slot is free.
     */
    private void finish(String id, RequestState s, RequestEvent r) {
        inflight.finish(id);
        final Verdicts.Outcome o = Verdicts.of(id, r, s, config.objectives(config.contracts().get(r.getContractId())),
                config.selection().qualityFloor(), partition, progress.lastWatermark());
        Out.send(context, new Record<>(id, new Out.Verdict(o.verdict()), o.sample().completionUs() / 1_000));
        partials.add(o.sample());
    }

    static String mergeKey(String contractId, String scenarioId) {
        return new Keys.Scenario(contractId, scenarioId).text();
    }

    /**
     * Finishes requests whose missing token events can no longer come on time, and gives up on token
     * events whose request event never came (orphans: {@code orphanExpiry} of log time after their last).
     */
    private void sweep() {
        final long both = clock.both();
        nextSweepUs = both + 100_000;
        // once both log clocks are a window and its grace past a completion, any event of that request
        // is late; its id need not be kept
        finished.expire(both - config.windowUs() - config.graceUs());
        for (Map.Entry<String, RequestState> e : inflight.due(clock, clock.tokenLogUs())) {
            finish(e.getKey(), e.getValue());
        }
        // orphans (token events whose request event never came) expire after minutes: a pass over
        // every in-flight request each 1/60 of that is plenty, and each 100 ms of event time is not
        final long orphan = config.orphanExpiry().toNanos() / 1_000;
        if (both >= nextOrphanSweepUs) {
            nextOrphanSweepUs = both + Math.max(1_000_000, orphan / 60);
            // A generator publishes every request event, then ticks through the last windows' grace, then marks the
            // end of its run on both topics: once both markers are read, a request whose chunks stopped more than a
            // grace before them has no request event to come. Nothing else moves log time at a run's end, so without
            // this an orphan would hold the run's last windows open for good.
            final long ended = endOfRunTokenUs == LogClock.NONE || endOfRunRequestUs == LogClock.NONE ? LogClock.NONE
                    : Math.min(endOfRunTokenUs, endOfRunRequestUs);
            for (String id : inflight.orphans(both, orphan, ended == LogClock.NONE ? LogClock.NONE : ended - config.graceUs())) {
                final RequestState s = inflight.get(id);
                final boolean expired = s.lastChunkLogUs + orphan <= both;
                // counted where its last token event's log time falls, as a refused token event is: a window its hold kept open
                refusals.orphaned(id, s.contractId, s.scenarioId, s.lastChunkLogUs, s.seenCount + " chunk(s), the last logged at "
                        + s.lastChunkLogUs + " us, and no request event " + (expired ? "within " + config.orphanExpiry()
                        + " of log time (--orphan-expiry)" : "before its run's end-of-run marker"));
                forget(id);
            }
        }
    }

    private void forget(String id) {
        inflight.forget(id);
    }

    /**
     * Every 200 ms of wall-clock time: partial aggregates, then the watermark ({@link LogClock#watermark}:
     * both log clocks, held back by every request in flight at its earliest on-time event, so however
     * long a request streams, the windows of its gaps stay open until it finishes). Live, a partition
     * touches a few windows per heartbeat, and they all go. When event time runs far ahead of the
     * clock (a replay, a backlog) each heartbeat holds partials of many windows, and sending each costs
     * a record and a merge: then only those the watermark may close go at once, the rest once per
     * live interval. Final records never wait either way.
     */
    private void heartbeat(long nowMs) {
        final long wm = clock.watermark(inflight.hold());
        final boolean deleted;
        if (partials.size() <= LIVE_PARTIALS || nowMs - lastPartialFlushMs >= config.liveInterval().toMillis()) {
            deleted = partials.flush(Long.MAX_VALUE, this::sendPartial);
            lastPartialFlushMs = nowMs;
        } else {
            deleted = partials.flush(wm, this::sendPartial);
        }
        if (deleted) {
            progress.saveClocks(); // the deleted entries may have been the ones that carried the clocks
        }
        sendWatermark(wm);
    }

    private void sendPartial(WindowAgg a) {
        Out.send(context, new Record<>(mergeKey(a.contractId, a.scenarioId),
                new Out.ToMerger(Sample.CODEC.encode(new Sample.Partial(partition, progress.lastWatermark(), a))),
                Math.max(0, a.startUs / 1_000)));
    }

    private void sendWatermark(long wm) {
        if (!progress.advance(wm)) {
            return;
        }
        Out.send(context, new Record<>(WATERMARK_KEY, new Out.ToMerger(Sample.CODEC.encode(new Sample.Watermark(partition, wm))),
                Math.max(0, wm / 1_000)));
    }

    private void deadLetter(Record<String, byte[]> record, String reason, String message) {
        refusals.refuse(record, reason, message);
    }
}
