package dev.goodput.streams;

import dev.goodput.metrics.Definitions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.TokenEvent;
import dev.goodput.contract.Contract;
import dev.goodput.serde.WireFormatException;
import dev.goodput.failure.DeadLetterHandler;
import dev.goodput.topics.Control;
import dev.goodput.topics.DeadLetters;
import dev.goodput.streams.time.LogClock;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Objects;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.goodput.metrics.Micros;

/**
 * Stage A, one instance per input partition: assembles each request from its token events and its
 * request event (both keyed by request id, so co-partitioned), computes its metrics and verdicts,
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
 */
final class RequestAssembler implements Processor<String, byte[], String, Out> {

    static final String NAME = "request-assembler";
    static final String STORE = "inflight-requests";
    static final String PROGRESS = "assembler-progress";
    static final String PARTIALS = "assembler-partials";
    /**
     * The store of {@link FinishedRequests}: a request or token event that comes again (an
     * at-least-once mirror, a re-publish) is refused as {@code duplicate} instead of being counted
     * twice. Ids are kept until event time is a window and its grace past their completion; later
     * than that, an event of the request is refused as {@code late} anyway.
     */
    static final String FINISHED = "assembler-finished";
    private static final String LAST_WATERMARK = "last-watermark";
    /** The two log clocks ({@link LogClock}): token topic, request topic. */
    private static final String LOG_CLOCKS = "log-clocks";
    static final String STAGE = "streams-app/request-assembler";

    private static final Logger LOG = LoggerFactory.getLogger(RequestAssembler.class);

    private final StreamsSettings config;
    private final Deserializer<TokenEvent> tokens;
    private final Deserializer<RequestEvent> requests;
    private ProcessorContext<String, Out> context;
    private ObjectStore<RequestState> inflight;
    private ObjectStore<long[]> progress;
    private LogClock clock;
    private long[] clocks;
    private ObjectStore<WindowAgg> partials;
    private FinishedRequests finished;
    private int partition;
    private long lastWatermarkSent = Long.MIN_VALUE;
    /** Log time of the record (or batched event) being processed: where a refusal of it is counted. */
    private long currentLogUs = Long.MIN_VALUE;
    private long nextSweepUs = Long.MIN_VALUE;
    private long nextOrphanSweepUs = Long.MIN_VALUE;
    /** In-flight requests whose request event is in but not all their chunks: sweeps and watermarks look only here. */
    private final Map<String, RequestState> waiting = new HashMap<>();
    /** The offset of the event being processed when it came in a {@link TokenBatch}; -1 otherwise. */
    private long eventOffset = -1;
    /** Wall-clock time of the last heartbeat that sent every partial aggregate. */
    private long lastPartialFlushMs;
    /** The token event on the fast path: its record, or its place in a batch (see {@link #currentRecord()}). */
    private Record<String, byte[]> current;
    private TokenBatch.Reader currentEvent;

    private final FastTokenReader fast;
    private final Map<String, byte[]> contractIdBytes = new HashMap<>();
    private final byte[] selectedRun;
    /** Chunks a request may have ({@link EventChecks#maxChunks}). */
    private final int maxChunks;

    RequestAssembler(StreamsSettings config, Deserializer<TokenEvent> tokens, Deserializer<RequestEvent> requests,
                     FastTokenReader fast) {
        this.config = config;
        this.tokens = tokens;
        this.requests = requests;
        this.fast = fast;
        this.selectedRun = config.selection().runId() == null ? null
                : config.selection().runId().getBytes(StandardCharsets.UTF_8);
        config.contracts().keySet().forEach(id -> contractIdBytes.put(id, id.getBytes(StandardCharsets.US_ASCII)));
        this.maxChunks = EventChecks.maxChunks(config.contracts().values());
    }

    @Override
    public void init(ProcessorContext<String, Out> ctx) {
        this.context = ctx;
        this.inflight = ctx.getStateStore(STORE);
        this.progress = ctx.getStateStore(PROGRESS);
        this.partials = ctx.getStateStore(PARTIALS);
        final ObjectStore<List<String>> finishedBuckets = ctx.getStateStore(FINISHED);
        finishedBuckets.load();
        this.finished = new FinishedRequests(finishedBuckets);
        inflight.load();
        progress.load();
        partials.load();
        this.partition = ctx.taskId().partition();
        for (Map.Entry<String, RequestState> e : inflight.entries().entrySet()) {
            if (e.getValue().requestBytes != null) {
                waiting.put(e.getKey(), e.getValue());
            }
        }
        final long[] last = progress.get(LAST_WATERMARK);
        if (last != null) {
            lastWatermarkSent = last[0];
        }
        final long[] restored = progress.get(LOG_CLOCKS);
        this.clocks = restored != null && restored.length == 2 ? restored : new long[] {LogClock.NONE, LogClock.NONE};
        this.clock = new LogClock(config.windowUs(), config.graceUs(), clocks[0], clocks[1]);
        LOG.info("request assembler {} restored {} in-flight requests, token log time {}, request log time {}",
                ctx.taskId(), inflight.size(), clocks[0], clocks[1]);
        // Heartbeat: tells the mergers how far this partition's event time has come, even when no
        // request finishes. Only the timing of heartbeats depends on the wall clock, never a result.
        ctx.schedule(Duration.ofMillis(200), PunctuationType.WALL_CLOCK_TIME, this::heartbeat);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        final String topic = context.recordMetadata().get().topic();
        if (!TokenBatch.isBatch(record.headers())) {
            // every record's place in the log moves its topic's clock, whatever else becomes of it
            currentLogUs = topic.equals(config.topics().tokens()) ? tokenLog(record.timestamp()) : requestLog(record.timestamp());
        }
        if (Control.is(record.headers())) {
            // a tick or an end-of-run marker: nothing but its place in the log
            maybeSweep();
            return;
        }
        if (record.key() == null && !TokenBatch.isBatch(record.headers())) {
            // events are keyed by request id; without one it cannot be joined, and a null key in state fails the commit
            deadLetter(record, "null_key", "no request id key on " + topic);
            return;
        }
        if (!topic.equals(config.topics().tokens())) {
            onRequest(record);
        } else if (TokenBatch.isBatch(record.headers())) {
            onBatch(record);
            return;
        } else {
            onToken(record);
        }
        maybeSweep();
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

    private long tokenLog(long timestampMs) {
        return kept(0, clock.token(timestampMs));
    }

    private long requestLog(long timestampMs) {
        return kept(1, clock.request(timestampMs));
    }

    /** Keeps a log clock in the progress store when it moved (restored on restart); returns it. */
    private long kept(int topic, long us) {
        if (us != clocks[topic]) {
            clocks[topic] = us;
            progress.put(LOG_CLOCKS, clocks);
        }
        return us;
    }

    /**
     * Token events coalesced by {@link CoalescingConsumer}: each one exactly as if it had come alone.
     * Only a frame that cannot be read goes to the DLQ, whole; an error in processing an event is
     * not caught here, so it fails the task as it would for a single record.
     */
    private void onBatch(Record<String, byte[]> batch) {
        int done = 0;
        try {
            final TokenBatch.Reader events;
            try {
                events = new TokenBatch.Reader(Objects.requireNonNull(batch.value(), "no frame"),
                        context.recordMetadata().get().offset());
            } catch (IllegalArgumentException | NullPointerException e) {
                deadLetter(batch, "invalid_batch", "token batch frame unreadable: " + e.getMessage());
                return;
            }
            while (true) {
                try {
                    if (!events.next()) {
                        return;
                    }
                } catch (IllegalArgumentException e) {
                    eventOffset = -1;
                    deadLetter(batch, "invalid_batch", "token batch frame unreadable after " + done + " events: "
                            + e.getMessage());
                    return;
                }
                eventOffset = events.offset;
                currentLogUs = tokenLog(events.timestamp);
                try {
                    if (events.key == null) {
                        deadLetter(new Record<>(null, events.value(), events.timestamp), "null_key",
                                "no request id key on " + config.topics().tokens());
                    } else if (fast.read(events.frame, events.valueOffset, events.valueLength)) {
                        current = null;
                        currentEvent = events;
                        onFastToken(events.key);
                    } else {
                        onSlowToken(new Record<>(events.key, events.value(), events.timestamp));
                    }
                } catch (KafkaException e) {
                    throw e; // the framework's own (fencing, migration, a store): not this event's fault
                } catch (RuntimeException e) {
                    // one event's error refuses that event alone, as the processing handler does for a record
                    // that came alone; the rest of the batch goes on
                    deadLetter(new Record<>(events.key, events.value(), events.timestamp), DeadLetterHandler.REASON,
                            DeadLetterHandler.describe(e));
                }
                maybeSweep();
                done++;
            }
        } finally {
            eventOffset = -1;
            currentEvent = null;
        }
    }

    /** The token event on the fast path as a Record, made from the batch frame only when needed (rarely). */
    private Record<String, byte[]> currentRecord() {
        if (current == null) {
            current = new Record<>(currentEvent.key, currentEvent.value(), currentEvent.timestamp);
        }
        return current;
    }

    private void onToken(Record<String, byte[]> record) {
        if (fast.read(record.value())) {
            current = record;
            onFastToken(record.key());
            return;
        }
        onSlowToken(record);
    }

    private void onSlowToken(Record<String, byte[]> record) {
        final TokenEvent t = decode(record, tokens, config.topics().tokens());
        if (t == null || t.getWarmup() || selectedRun != null && !config.selection().runId().equals(t.getRunId())) {
            return;
        }
        if (!config.contracts().containsKey(t.getContractId())) {
            deadLetter(record, "unknown_contract", "contract " + t.getContractId() + " is not one this app was started with");
            return;
        }
        final long arrival = Micros.of(t.getArrivalTimeUs());
        final EventChecks.Problem bad = EventChecks.token(t.getChunkIndex(), arrival, record.timestamp(), maxChunks);
        if (bad != null) {
            deadLetter(record, bad.reason(), bad.message());
            return;
        }
        final long logUs = currentLogUs; // moved on in process(), as for every record
        RequestState s = refuseToken(record, t.getRequestId(), inflight.get(t.getRequestId()), arrival, logUs);
        if (s == REFUSED) {
            return;
        }
        if (s == null) {
            s = new RequestState();
            s.contractId = t.getContractId();
            s.scenarioId = t.getScenarioId();
            inflight.put(t.getRequestId(), s);
        } else if (!s.contractId.equals(t.getContractId())) {
            deadLetter(record, "mixed_contracts", "request " + t.getRequestId() + " has events of contracts "
                    + s.contractId + " and " + t.getContractId());
            return;
        } else {
            inflight.touch(t.getRequestId());
        }
        if (s.outOfOrder(t.getChunkIndex(), arrival)) {
            deadLetter(record, "chunks_out_of_order", "chunk " + t.getChunkIndex() + " of request " + t.getRequestId()
                    + " arrived at " + Micros.toInstant(arrival) + ", out of order with its neighbours");
            return;
        }
        if (!s.addChunk(t.getChunkIndex(), arrival, logUs)) {
            deadLetter(record, "duplicate", "chunk " + t.getChunkIndex() + " of request " + t.getRequestId() + " came twice");
            return;
        }
        if (s.complete()) {
            finish(t.getRequestId(), s);
        }
    }

    /** The same as the Avro path below, on fields read in place (no record built, no strings unless new). */
    private void onFastToken(String id) {
        if (fast.warmup || selectedRun != null && !fast.runIs(selectedRun)) {
            return;
        }
        final long timestampMs = current != null ? current.timestamp() : currentEvent.timestamp;
        final EventChecks.Problem bad = EventChecks.token(fast.chunkIndex, fast.arrivalUs, timestampMs, maxChunks);
        if (bad != null) {
            deadLetter(currentRecord(), bad.reason(), bad.message());
            return;
        }
        final long logUs = currentLogUs;
        RequestState s = inflight.get(id);
        if (s == null || clock.late(fast.arrivalUs, logUs)) {
            s = refuseToken(null, id, s, fast.arrivalUs, logUs);
            if (s == REFUSED) {
                return;
            }
        }
        if (s == null) {
            final String contractId = knownContract();
            if (contractId == null) {
                deadLetter(currentRecord(), "unknown_contract", "contract " + fast.contractId() + " is not one this app was started with");
                return;
            }
            final TokenEvent t = tokens.deserialize(config.topics().tokens(), currentRecord().value());
            s = new RequestState();
            s.contractId = contractId;
            s.scenarioId = t.getScenarioId();
            inflight.put(id, s);
            s.dirty = true;
        } else if (!fast.contractIs(contractIdBytes.get(s.contractId))) {
            if (knownContract() == null) {
                deadLetter(currentRecord(), "unknown_contract", "contract " + fast.contractId() + " is not one this app was started with");
            } else {
                deadLetter(currentRecord(), "mixed_contracts", "request " + id + " has events of contracts " + s.contractId
                        + " and " + fast.contractId());
            }
            return;
        } else if (!s.dirty) {
            inflight.touch(id);
        }
        s.dirty = true;
        final long arrival = fast.arrivalUs;
        if (s.outOfOrder(fast.chunkIndex, arrival)) {
            deadLetter(currentRecord(), "chunks_out_of_order", "chunk " + fast.chunkIndex + " of request " + id
                    + " arrived at " + Micros.toInstant(arrival) + ", out of order with its neighbours");
            return;
        }
        if (!s.addChunk(fast.chunkIndex, arrival, logUs)) {
            deadLetter(currentRecord(), "duplicate", "chunk " + fast.chunkIndex + " of request " + id + " came twice");
            return;
        }
        if (s.complete()) {
            finish(id, s);
        }
    }

    /** Ids of requests refused as late are kept with the finished ones, under this prefix. */
    private static final String REFUSED_PREFIX = "!";

    /** Marks a token event {@link #refuseToken} refused. */
    private static final RequestState REFUSED = new RequestState();

    /**
     * The checks of a token event against its request, in an order that makes the outcome a function
     * of the log alone: a late token event (its own log time) is refused and never joins; a request
     * refused as late takes its other token events with it; one of a finished request is a duplicate (a
     * request finishes only with all its chunks, or once no on-time token event of it can come).
     * Returns the request's state (null when there is none yet) or {@link #REFUSED}.
     */
    private RequestState refuseToken(Record<String, byte[]> record, String id, RequestState s, long arrivalUs, long logUs) {
        final Record<String, byte[]> r = record != null ? record : currentRecord();
        if (clock.late(arrivalUs, logUs)) {
            refuseLate(r, logUs, "a token event of request " + id + " (chunk at " + Micros.toInstant(arrivalUs)
                    + ") after its window closed (log time " + Micros.toInstant(logUs) + ", grace " + config.grace() + ")");
            return REFUSED;
        }
        if (s == null && finished.contains(REFUSED_PREFIX + id)) {
            return REFUSED; // its request event is in the DLQ as late, and the request with it
        }
        if (s == null && finished.contains(id)) {
            deadLetter(r, "duplicate", "a token event of request " + id + ", which has finished");
            return REFUSED;
        }
        return s;
    }

    /**
     * A late record goes to the DLQ and is counted in the late events of the window its log time falls
     * in (its own window has closed; that one is open, since no watermark passes a log clock).
     */
    private void refuseLate(Record<String, byte[]> record, long logUs, String message) {
        deadLetter(record, "late", message);
    }

    /**
     * Counts a refused record in the window of its log time, under its contract and scenario when
     * they can be read: the window records say what was refused while they were open. That window
     * is open: no watermark passes the clock of the record's own topic.
     */
    private void countRefused(Record<String, byte[]> record, String reason) {
        if (currentLogUs == Long.MIN_VALUE || record.value() == null) {
            return;
        }
        final String[] where = contractAndScenario(record);
        if (where == null) {
            return;
        }
        final WindowAgg a = partial(where[0], where[1], Definitions.windowStart(currentLogUs, config.windowUs()));
        a.refused.merge(reason, 1L, Long::sum);
        if ("late".equals(reason)) {
            a.lateEvents++;
        }
    }

    /** The contract and scenario of a token or request record, or null when it cannot be read. */
    private String[] contractAndScenario(Record<String, byte[]> record) {
        try {
            final String topic = context.recordMetadata().map(m -> m.topic()).orElse("");
            if (topic.equals(config.topics().tokens())) {
                final TokenEvent t = tokens.deserialize(topic, record.value());
                return config.contracts().containsKey(t.getContractId()) ? new String[] {t.getContractId(), t.getScenarioId()} : null;
            }
            final RequestEvent r = requests.deserialize(topic, record.value());
            return config.contracts().containsKey(r.getContractId()) ? new String[] {r.getContractId(), r.getScenarioId()} : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private String knownContract() {
        for (Map.Entry<String, byte[]> e : contractIdBytes.entrySet()) {
            if (fast.contractIs(e.getValue())) {
                return e.getKey();
            }
        }
        return null;
    }

    private void onRequest(Record<String, byte[]> record) {
        final RequestEvent r = decode(record, requests, config.topics().requests());
        if (r == null) {
            return;
        }
        final String id = r.getRequestId();
        if (r.getWarmup()) {
            forget(id);
            return;
        }
        if (!config.contracts().containsKey(r.getContractId())) {
            deadLetter(record, "unknown_contract", "contract " + r.getContractId() + " is not one this app was started with");
            forget(id);
            return;
        }
        final EventChecks.Problem bad = EventChecks.request(r, record.timestamp(), maxChunks);
        if (bad != null) {
            deadLetter(record, bad.reason(), bad.message());
            forget(id);
            return;
        }
        final long completion = Micros.of(r.getCompletionTimeUs());
        final long logUs = currentLogUs;
        if (!config.selection().takes(r.getRunId(), completion)) {
            // not part of what this (re)computation selected: neither a result nor an error
            forget(id);
            return;
        }
        // lateness first, then duplicates: ids of finished requests are forgotten only once any event
        // of theirs would be late, so the reason is the same whenever the id is forgotten
        if (clock.late(completion, logUs)) {
            refuseLate(record, logUs, "completed at " + Micros.toInstant(completion) + ", after its window closed "
                    + "(log time " + Micros.toInstant(logUs) + ", grace " + config.grace() + ")");
            final RequestState dropped = inflight.get(id);
            if (dropped == null || dropped.requestBytes == null) {
                forget(id);
                // its token events still to come join nothing: dropped with it, whichever topic is read first
                finished.add(REFUSED_PREFIX + id, completion);
            }
            return;
        }
        if (finished.contains(id)) {
            deadLetter(record, "duplicate", "request " + id + " has finished already");
            return;
        }
        RequestState existing = inflight.get(id);
        if (existing != null && existing.requestBytes == null
                && existing.lastChunkLogUs + config.orphanExpiry().toNanos() / 1_000 <= logUs) {
            // its token events stopped longer ago than the orphan expiry: they were given up on
            forget(id);
            existing = null;
        }
        if (existing != null && existing.requestBytes != null) {
            deadLetter(record, "duplicate", "request " + id + " has a request event already");
            return;
        }
        if (existing != null && !existing.contractId.equals(r.getContractId())) {
            deadLetter(record, "mixed_contracts", "request " + id + " has events of contracts " + existing.contractId
                    + " and " + r.getContractId());
            forget(id);
            return;
        }
        final RequestState s = existing != null ? existing : new RequestState();
        s.contractId = r.getContractId();
        s.scenarioId = r.getScenarioId();
        s.requestBytes = record.value();
        s.completionUs = completion;
        s.expectedChunks = r.getContentChunks();
        s.requestLogUs = logUs;
        if (s.complete()) {
            finish(id, s, r);
        } else {
            inflight.put(id, s);
            waiting.put(id, s);
        }
    }

    /** Decodes a record; a record that cannot be read goes to the DLQ with the reason, and null is returned. */
    private <T> T decode(Record<String, byte[]> record, Deserializer<T> deserializer, String topic) {
        try {
            return deserializer.deserialize(topic, record.value());
        } catch (WireFormatException e) {
            deadLetter(record, e.reason().name().toLowerCase(Locale.ROOT), e.getMessage());
        } catch (RuntimeException e) {
            deadLetter(record, "invalid", String.valueOf(e.getMessage()));
        }
        return null;
    }

    private void finish(String id, RequestState s) {
        finish(id, s, requests.deserialize(config.topics().requests(), s.requestBytes));
    }

    /** Computes the request's metrics and verdicts and forwards them; the request leaves the store. */
    private void finish(String id, RequestState s, RequestEvent r) {
        forget(id);
        finished.add(id, Micros.of(r.getCompletionTimeUs()));
        final Contract c = config.contracts().get(r.getContractId());
        final boolean ok = r.getStatus() == RequestStatus.OK && r.getFirstChunkTimeUs() != null
                && r.getLastChunkTimeUs() != null;
        final long intended = Micros.of(r.getIntendedSendTimeUs());
        final long ttft = ok ? Definitions.ttft(intended, Micros.of(r.getFirstChunkTimeUs())) : Definitions.UNDEFINED;
        final long e2e = ok ? Definitions.e2e(intended, Micros.of(r.getLastChunkTimeUs())) : Definitions.UNDEFINED;
        final long ttfat = ok && r.getFirstAnswerTimeUs() != null
                ? Definitions.timeToFirstAnswer(intended, Micros.of(r.getFirstAnswerTimeUs())) : Definitions.UNDEFINED;
        final double tpot = ok ? Definitions.tpot(e2e, ttft, r.getOutputTokens()) : Double.NaN;
        final List<String> failed = Definitions.failedObjectives(ok, ttft, tpot, e2e, config.objectives(c));
        final boolean sloPass = Definitions.sloPass(failed);
        final Double floor = config.selection().qualityFloor();
        final boolean qualityPass = ok && (floor == null ? Boolean.TRUE.equals(r.getQualityPass())
                : r.getQualityScore() != null && r.getQualityScore() >= floor);
        final boolean good = Definitions.good(sloPass, qualityPass);
        final long lateness = Definitions.dispatchLateness(intended, Micros.of(r.getActualSendTimeUs()));
        final long completion = Micros.of(r.getCompletionTimeUs());
        final long recordTs = completion / 1_000;

        context.forward(new Record<>(id, (Out) new Out.Verdict(RequestVerdict.newBuilder()
                .setContractId(r.getContractId()).setRunId(r.getRunId()).setScenarioId(r.getScenarioId())
                .setRequestId(id).setCompletionTimeUs(r.getCompletionTimeUs()).setStatus(r.getStatus())
                .setErrorClass(r.getErrorClass())
                .setTtftUs(ok ? ttft : null).setTtfatUs(ttfat != Definitions.UNDEFINED ? ttfat : null)
                .setE2eUs(ok ? e2e : null).setTpotUs(Double.isNaN(tpot) ? null : tpot)
                .setDispatchLatenessUs(lateness).setOutputTokens(r.getOutputTokens()).setSloPass(sloPass)
                .setTargetId(r.getTargetId()).setPromptTokens(r.getPromptTokens()).setOperation(r.getOperation())
                .setFailedObjectives(failed).setQualityPass(qualityPass).setGood(good).build()), recordTs));

        final long[][] gaps = ok ? s.gaps() : new long[][] {new long[0], new long[0]};
        final Sample.Request sample = new Sample.Request(partition, lastWatermarkSent, r.getContractId(), r.getScenarioId(),
                completion, r.getStatus().ordinal(), r.getErrorClass(), ttft, ttfat, e2e, tpot, r.getOutputTokens(),
                lateness, sloPass, qualityPass, good, gaps[0], gaps[1]);
        aggregate(sample);
    }

    /**
     * Adds a finished request to this partition's partial aggregates, which go to the merger with
     * the next heartbeat: one record per (contract, scenario, window) and heartbeat instead of one
     * per request. Every chunk here came on time (a late token event never joins), and the request
     * holds its gaps' windows open until it finishes, so each gap goes to its own window.
     */
    private void aggregate(Sample.Request r) {
        final long size = config.windowUs();
        final long start = Definitions.windowStart(r.completionUs(), size);
        final WindowAgg agg = partial(r.contractId(), r.scenarioId(), start);
        agg.addRequest(r);
        if (r.status() != RequestStatus.OK.ordinal()) {
            return;
        }
        for (int i = 0; i < r.gapsUs().length; i++) {
            final long gapStart = Definitions.windowStart(r.gapTimesUs()[i], size);
            if (gapStart == start) {
                agg.addGap(r.gapsUs()[i]);
            } else {
                partial(r.contractId(), r.scenarioId(), gapStart).addGap(r.gapsUs()[i]);
            }
        }
    }

    private WindowAgg partial(String contractId, String scenarioId, long startUs) {
        final String key = contractId + "|" + scenarioId + "|" + startUs;
        WindowAgg a = partials.get(key);
        if (a == null) {
            a = WindowAgg.partial(contractId, scenarioId, startUs);
            partials.put(key, a);
        } else {
            partials.touch(key);
        }
        return a;
    }

    /**
     * Sends the partial aggregates of windows that {@code closableUs} (the watermark about to be
     * sent) may close, or all of them with {@code Long.MAX_VALUE}; in key order, so a replay sends
     * the same records in the same order.
     */
    private void flushPartials(long closableUs) {
        if (partials.size() == 0) {
            return;
        }
        final List<String> keys = new ArrayList<>(partials.entries().keySet());
        keys.sort(null);
        for (String key : keys) {
            final WindowAgg a = partials.get(key);
            if (closableUs != Long.MAX_VALUE && a.startUs + config.windowUs() + config.graceUs() > closableUs) {
                continue;
            }
            context.forward(new Record<>(mergeKey(a.contractId, a.scenarioId),
                    (Out) new Out.ToMerger(Sample.encode(new Sample.Partial(partition, lastWatermarkSent, a))),
                    Math.max(0, a.startUs / 1_000)));
            partials.remove(key);
        }
    }

    static String mergeKey(String contractId, String scenarioId) {
        return contractId + "|" + scenarioId;
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
        // A request with missing chunks finishes once the token log says none of them can come on time:
        // its chunks all arrived by its completion, so any still to come is late
        final long tokenLogUs = clock.tokenLogUs();
        if (!waiting.isEmpty()) {
            final List<Map.Entry<String, RequestState>> due = new ArrayList<>();
            for (Map.Entry<String, RequestState> e : waiting.entrySet()) {
                if (clock.late(e.getValue().completionUs, tokenLogUs)) {
                    due.add(e);
                }
            }
            // finish in a fixed order so that a replay emits the same records in the same order
            due.sort(Map.Entry.comparingByKey());
            for (Map.Entry<String, RequestState> e : due) {
                finish(e.getKey(), e.getValue());
            }
        }
        // orphans (token events whose request event never came) expire after minutes: a pass over
        // every in-flight request each 1/60 of that is plenty, and each 100 ms of event time is not
        final long orphan = config.orphanExpiry().toNanos() / 1_000;
        if (both >= nextOrphanSweepUs) {
            nextOrphanSweepUs = both + Math.max(1_000_000, orphan / 60);
            final List<String> orphans = new ArrayList<>();
            for (Map.Entry<String, RequestState> e : inflight.entries().entrySet()) {
                final RequestState s = e.getValue();
                if (s.requestBytes == null && s.lastChunkLogUs + orphan <= both) {
                    orphans.add(e.getKey());
                }
            }
            if (!orphans.isEmpty()) {
                LOG.info("task {} gives up on {} requests whose token events stopped {} ago without a request event",
                        context.taskId(), orphans.size(), config.orphanExpiry());
            }
            orphans.forEach(this::forget);
        }
    }

    /** Drops a request from the in-flight store and from the requests waiting for token events. */
    private void forget(String id) {
        inflight.remove(id);
        waiting.remove(id);
    }

    /**
     * This partition's watermark ({@link LogClock#watermark}): both log clocks, held back by every
     * request in flight at its earliest on-time event, so however long a request streams, the
     * windows of its gaps stay open until it finishes (or is given up as an orphan).
     */
    private long watermark() {
        long hold = Long.MAX_VALUE;
        for (RequestState s : inflight.entries().values()) {
            final long h = s.hold();
            if (h < hold) {
                hold = h;
            }
        }
        return clock.watermark(hold);
    }

    /**
     * Every 200 ms of wall-clock time: partial aggregates, then the watermark. Live, a partition
     * touches a few windows per heartbeat, and they all go, so live window records lag the verdicts
     * no more than one sample per request did. When event time runs far ahead of the clock (a
     * replay, a backlog) each heartbeat holds partials of many windows, and sending each costs a
     * record and a merge: then only those the watermark may close go at once, the rest once per
     * live interval. Final records never wait either way.
     */
    private void heartbeat(long nowMs) {
        final long wm = watermark();
        if (partials.size() <= LIVE_PARTIALS || nowMs - lastPartialFlushMs >= config.liveInterval().toMillis()) {
            flushPartials(Long.MAX_VALUE);
            lastPartialFlushMs = nowMs;
        } else {
            flushPartials(wm);
        }
        sendWatermark(wm);
    }

    /** Partials a heartbeat sends every time; above this, the others wait for the live interval. */
    static final int LIVE_PARTIALS = 8;

    private void sendWatermark(long wm) {
        if (wm == Long.MIN_VALUE || wm <= lastWatermarkSent) {
            return;
        }
        lastWatermarkSent = wm;
        progress.put(LAST_WATERMARK, new long[] {wm});
        context.forward(new Record<>(WATERMARK_KEY, (Out) new Out.ToMerger(Sample.encode(new Sample.Watermark(partition, wm))),
                Math.max(0, wm / 1_000)));
    }

    /** Watermarks go to every merger partition; the partitioner recognises this key. */
    static final String WATERMARK_KEY = "__watermark__";

    private void deadLetter(Record<String, byte[]> record, String reason, String message) {
        LOG.debug("task {} refuses {}: {} ({})", context.taskId(), record.key(), reason, message);
        final var meta = context.recordMetadata();
        final long offset = eventOffset >= 0 ? eventOffset : meta.map(m -> m.offset()).orElse(-1L);
        final var headers = DeadLetters.headers(STAGE, reason, message, meta.map(m -> m.topic()).orElse("?"),
                meta.map(m -> m.partition()).orElse(-1), offset);
        record.headers().forEach(h -> {
            if (!TokenBatch.HEADER.equals(h.key())) {
                headers.add(h);
            }
        });
        context.forward(new Record<String, Out>(record.key(), new Out.Dead(DeadLetters.bounded(record.value(), headers)),
                record.timestamp(), headers));
        countRefused(record, reason);
    }

}
