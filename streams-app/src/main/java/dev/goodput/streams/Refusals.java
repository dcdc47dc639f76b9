package dev.goodput.streams;

import java.util.Locale;

import dev.goodput.assembly.RequestEngine;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenEvent;
import dev.goodput.serde.WireFormatException;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the assembler's refused records go: the DLQ with their original bytes (a chunk of a run:
 * that chunk as an event of its own), the reason, and where they were read, and a count in the window
 * of their log time under their contract and scenario, so the window records say what was refused
 * while they were open.
 */
final class Refusals {
    private static final Logger LOG = LoggerFactory.getLogger(Refusals.class);

    private final StreamsSettings config;
    private final Deserializer<TokenEvent> tokens;
    private final Deserializer<RequestEvent> requests;
    private final ProcessorContext<String, Out> context;
    private final RequestEngine<?> engine;
    /** Log time of the record being processed. */
    private long logUs = Long.MIN_VALUE;

    Refusals(StreamsSettings config, Deserializer<TokenEvent> tokens, Deserializer<RequestEvent> requests,
             ProcessorContext<String, Out> context, RequestEngine<?> engine) {
        this.config = config;
        this.tokens = tokens;
        this.requests = requests;
        this.context = context;
        this.engine = engine;
    }

    /** The log time of the record being processed. */
    void at(long recordLogUs) {
        this.logUs = recordLogUs;
    }

    /** Decodes a record; a record that cannot be read is refused with the reason, and null is returned. */
    <T> T decode(Record<String, byte[]> record, Deserializer<T> deserializer, String topic) {
        try {
            return deserializer.deserialize(topic, record.value());
        } catch (WireFormatException e) {
            refuse(record, e.reason().name().toLowerCase(Locale.ROOT), e.getMessage());
        } catch (RuntimeException e) {
            refuse(record, "invalid", String.valueOf(e.getMessage()));
        }
        return null;
    }

    void refuse(Record<String, byte[]> record, String reason, String message) {
        LOG.debug("task {} refuses {}: {} ({})", context.taskId(), record.key(), reason, message);
        final var meta = context.recordMetadata();
        final long offset = meta.map(m -> m.offset()).orElse(-1L);
        final var headers = DeadLetters.headers(RequestAssembler.STAGE, reason, message, meta.map(m -> m.topic()).orElse("?"),
                meta.map(m -> m.partition()).orElse(-1), offset);
        record.headers().forEach(headers::add);
        Out.send(context, new Record<String, Out>(record.key(), new Out.Dead(DeadLetters.bounded(record.value(), headers)),
                record.timestamp(), headers));
        count(record, reason);
    }

    /** The DLQ reason of a request whose request event never came. */
    static final String ORPHANED = "orphaned";

    /**
     * A request whose token events came but whose request event never will: no record of its own to
     * send, so its DLQ record carries its id as key, no value and the reason; it is counted under its
     * contract and scenario in the window of {@code atUs}, the log time of its last token event (the
     * same live and in a replay, and in a window the request's hold on the watermark kept open).
     */
    void orphaned(String id, String contractId, String scenarioId, long atUs, String message) {
        LOG.info("task {} refuses request {}: {} ({})", context.taskId(), id, ORPHANED, message);
        final var headers = DeadLetters.headers(RequestAssembler.STAGE, ORPHANED, message, config.topics().tokens(),
                context.taskId().partition(), -1);
        Out.send(context, new Record<String, Out>(id, new Out.Dead(null), Math.max(0, atUs / 1_000), headers));
        if (config.contracts().containsKey(contractId)) {
            engine.countRefused(contractId, scenarioId, atUs, ORPHANED);
        }
    }

    /** Counted under the record's contract and scenario; a record whose contract or scenario cannot be read is counted in the DLQ only. */
    private void count(Record<String, byte[]> record, String reason) {
        if (logUs == Long.MIN_VALUE || record.value() == null) {
            return;
        }
        try {
            final String topic = context.recordMetadata().map(m -> m.topic()).orElse("");
            final String contract;
            final String scenario;
            if (topic.equals(config.topics().tokens())) {
                final TokenEvent t = tokens.deserialize(topic, record.value());
                contract = t.getContractId();
                scenario = t.getScenarioId();
            } else {
                final RequestEvent r = requests.deserialize(topic, record.value());
                contract = r.getContractId();
                scenario = r.getScenarioId();
            }
            if (config.contracts().containsKey(contract)) {
                engine.countRefused(contract, scenario, logUs, reason);
            }
        } catch (RuntimeException e) {
            // unreadable: its DLQ record is the count
        }
    }
}
