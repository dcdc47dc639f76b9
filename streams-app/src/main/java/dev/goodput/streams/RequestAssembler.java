package dev.goodput.streams;

import java.time.Duration;

import dev.goodput.assembly.Decisions;
import dev.goodput.assembly.Refusal;
import dev.goodput.assembly.RequestEngine;
import dev.goodput.assembly.RequestState;
import dev.goodput.assembly.Verdict;
import dev.goodput.assembly.WindowAgg;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.TokenEvent;
import dev.goodput.definitions.Micros;
import dev.goodput.failure.DeadLetterHandler;
import dev.goodput.keys.Keys;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.topics.Control;
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
 * <p>This is the adapter between Kafka Streams and the {@link RequestEngine}, which decides (log
 * clocks, lateness, the join, in-flight and finished requests, orphans, verdicts, partial aggregates,
 * the watermark; no Kafka or Avro type in it): it decodes, feeds the engine the chunk of a run being
 * joined ({@link TokenInput}) and the request events ({@link EventRules}), and forwards what the
 * engine decides: verdicts as records ({@link Verdicts}), partial aggregates and watermarks to the
 * mergers, refusals to the DLQ ({@link Refusals}). It owns the stores and the heartbeat's wall clock.
 */
final class RequestAssembler implements Processor<String, byte[], String, Out> {

    static final String NAME = "request-assembler";
    /** v2: keyed by slot, the request id in the state (the engine's in-flight requests); v1 was keyed by request id. */
    static final String STORE = "inflight-requests-v2";
    static final String PROGRESS = "assembler-progress";
    /**
     * v5: the engine's journal of partial aggregates, up to 16 additions to an entry that names its
     * window once, each request's id with its outcome and the log clocks at the end (v4: neither;
     * v3: each addition named its window; v2: one addition an entry; v1: whole aggregates). See
     * {@link GoodputTopology#SAMPLES} on names.
     */
    static final String PARTIALS = "assembler-partials-v5";
    /**
     * The store of the engine's finished requests: a request or token event that comes again (an
     * at-least-once mirror, a re-publish) is refused as {@code duplicate} instead of being counted
     * twice. Ids are kept until event time is a window and its grace past their completion; later
     * than that, an event of the request is refused as {@code late} anyway. Until its window's partial
     * aggregate is sent, an id is carried by its journal entry ({@link #PARTIALS}) instead.
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
    private final EventRules rules;
    private ProcessorContext<String, Out> context;
    private RequestEngine<RequestEvent> engine;
    private Refusals refusals;
    private EventsMetric events;
    private int partition;
    /** The record being processed: what a refusal of the engine's sends to the DLQ. */
    private Record<String, byte[]> current;
    /** A chunk of {@link #token} is being joined: a refusal sends that chunk alone ({@link TokenInput#record}). */
    private boolean joining;
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
        this.rules = new EventRules(config, requestReader, requests);
    }

    @Override
    public void init(ProcessorContext<String, Out> ctx) {
        this.context = ctx;
        this.partition = ctx.taskId().partition();
        this.engine = new RequestEngine<>(config.engine(), rules, new Decisions<>() {
            @Override
            public void refuse(Refusal r) {
                refusals.refuse(joining ? token.record() : current, r.reason(), r.message());
            }

            @Override
            public void verdict(String id, RequestEvent r, RequestState s, Verdict v) {
                Out.send(context, new Record<>(id, new Out.Verdict(Verdicts.record(id, r, v)),
                        Micros.of(r.getCompletionTimeUs()) / 1_000));
            }

            @Override
            public void orphaned(String id, String contractId, String scenarioId, long lastChunkLogUs, String message) {
                // counted where its last token event's log time falls, as a refused token event is: a window its hold kept open
                refusals.orphaned(id, contractId, scenarioId, lastChunkLogUs, message);
            }

            @Override
            public void partial(WindowAgg a) {
                Out.send(context, new Record<>(mergeKey(a.contractId, a.scenarioId),
                        new Out.ToMerger(Sample.CODEC.encode(new Sample.Partial(partition, engine.lastWatermark(), a))),
                        Math.max(0, a.startUs / 1_000)));
            }

            @Override
            public void watermark(long wm) {
                Out.send(context, new Record<>(WATERMARK_KEY, new Out.ToMerger(Sample.CODEC.encode(new Sample.Watermark(partition, wm))),
                        Math.max(0, wm / 1_000)));
            }
        }, KafkaByteStore.of(ctx, STORE), KafkaByteStore.of(ctx, FINISHED), KafkaByteStore.of(ctx, PROGRESS),
                KafkaByteStore.of(ctx, PARTIALS));
        engine.start();
        this.refusals = new Refusals(config, tokens, requests, ctx, engine);
        this.events = new EventsMetric(ctx.metrics(), ctx.taskId().toString());
        LOG.info("request assembler {} restored {}", ctx.taskId(), engine);
        // Heartbeat: tells the mergers how far this partition's event time has come, even when no
        // request finishes. Only the timing of heartbeats depends on the wall clock, never a result.
        ctx.schedule(Duration.ofMillis(200), PunctuationType.WALL_CLOCK_TIME, this::heartbeat);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        try {
            handle(record);
        } finally {
            engine.endRecord();
        }
    }

    private void handle(Record<String, byte[]> record) {
        final String topic = context.recordMetadata().get().topic();
        final boolean isToken = topic.equals(config.topics().tokens());
        current = record;
        refusals.at(engine.logTime(isToken, record.timestamp()));
        if (Control.is(record.headers())) {
            // a tick or an end-of-run marker: nothing but its place in the log, and a marker says a run's events have all come
            if (Control.END_OF_RUN.equals(Control.kind(record.headers()))) {
                engine.endOfRun(isToken);
            }
            engine.maybeSweep();
            return;
        }
        if (record.key() == null) {
            // events are keyed by request id; without one it cannot be joined, and a null key in state fails the commit
            events.record(1);
            refusals.refuse(record, "null_key", "no request id key on " + topic);
            engine.maybeSweep(); // after every record: a sweep falls where it would in any run of the log
            return;
        }
        if (!isToken) {
            events.record(1);
            final RequestEvent inPlace = requestReader.read(record.value());
            final RequestEvent r = inPlace != null ? inPlace : refusals.decode(record, requests, config.topics().requests());
            if (r != null) {
                engine.request(r, record.value(), record.timestamp());
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
        engine.maybeSweep();
    }

    /**
     * The chunks of the token event {@code token} holds, each joined exactly as if it had come alone. An error in joining one
     * chunk of a longer run refuses that chunk alone, as the processing handler refuses a record that
     * came alone, and the rest of the run goes on; a run of one fails as any record does.
     */
    private void onRun() {
        events.record(token.size());
        joining = true;
        try {
            if (token.size() == 1) {
                engine.chunk(token);
                return;
            }
            for (int i = 0; i < token.size(); i++) {
                token.at(i);
                try {
                    engine.chunk(token);
                } catch (KafkaException e) {
                    throw e; // the framework's own (fencing, migration, a store): not this chunk's fault
                } catch (RuntimeException e) {
                    refusals.refuse(token.record(), DeadLetterHandler.REASON, DeadLetterHandler.describe(e));
                }
            }
        } finally {
            joining = false;
        }
    }

    static String mergeKey(String contractId, String scenarioId) {
        return new Keys.Scenario(contractId, scenarioId).text();
    }

    /**
     * Every 200 ms of wall-clock time: partial aggregates, then the engine's watermark. Live, a
     * partition touches a few windows per heartbeat, and they all go. When event time runs far ahead
     * of the clock (a replay, a backlog) each heartbeat holds partials of many windows, and sending
     * each costs a record and a merge: then only those the watermark may close go at once, the rest
     * once per live interval. Final records never wait either way.
     */
    private void heartbeat(long nowMs) {
        final boolean all = engine.openWindows() <= LIVE_PARTIALS || nowMs - lastPartialFlushMs >= config.liveInterval().toMillis();
        if (all) {
            lastPartialFlushMs = nowMs;
        }
        engine.heartbeat(all);
    }
}
