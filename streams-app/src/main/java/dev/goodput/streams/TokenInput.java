package dev.goodput.streams;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import dev.goodput.avro.TokenEvent;
import dev.goodput.metrics.Micros;
import dev.goodput.streams.fast.FastTokenReader;
import dev.goodput.streams.fast.TokenBatch;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The token event being processed, as the assembler needs it, whichever way it was read: in place
 * by the {@link FastTokenReader} (this build's writer schema, the common case: no Avro record, no
 * strings) or decoded in full (any other writer schema). One view, so the assembler has one token
 * path and both readings give the same results. It comes alone (a record) or in a {@link TokenBatch}
 * (an event of a frame, made a record only when one is needed: a refusal). Not thread-safe: one per processor.
 */
final class TokenInput {
    private final FastTokenReader fast;
    private final Deserializer<TokenEvent> tokens;
    private final String topic;
    private final Map<String, byte[]> contractIdBytes = new HashMap<>();
    private String lastContractId;
    private byte[] lastContractBytes;
    private final byte[] selectedRun;
    private final String selectedRunId;

    private boolean inPlace;
    private TokenEvent decoded;
    private String key;
    private long timestampMs;
    private Record<String, byte[]> record;
    private TokenBatch.Reader event;

    TokenInput(FastTokenReader fast, Deserializer<TokenEvent> tokens, String topic, Set<String> contractIds, String runId) {
        this.fast = fast;
        this.tokens = tokens;
        this.topic = topic;
        contractIds.forEach(id -> contractIdBytes.put(id, id.getBytes(StandardCharsets.US_ASCII)));
        this.selectedRunId = runId;
        this.selectedRun = runId == null ? null : runId.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A token event that came alone. Returns false when the fast reader cannot read it: then
     * {@link #decoded} must be set from the full deserializer (whose error names what is wrong).
     */
    boolean read(Record<String, byte[]> r) {
        record = r;
        event = null;
        key = r.key();
        timestampMs = r.timestamp();
        decoded = null;
        inPlace = fast.read(r.value());
        return inPlace;
    }

    /** The same for an event of a batch frame. */
    boolean read(TokenBatch.Reader e) {
        record = null;
        event = e;
        key = e.key;
        timestampMs = e.timestamp;
        decoded = null;
        inPlace = fast.read(e.frame, e.valueOffset, e.valueLength);
        return inPlace;
    }

    /** The full decoding of an event the fast reader could not read. */
    void decoded(TokenEvent t) {
        decoded = t;
    }

    String requestId() {
        return key;
    }

    long timestampMs() {
        return timestampMs;
    }

    /** Warm-up events, and events of runs a replay did not select, are not results: skipped, not refused. */
    boolean skipped() {
        if (inPlace) {
            return fast.warmup || selectedRun != null && !fast.runIs(selectedRun);
        }
        return decoded.getWarmup() || selectedRunId != null && !selectedRunId.equals(decoded.getRunId());
    }

    int chunkIndex() {
        return inPlace ? fast.chunkIndex : decoded.getChunkIndex();
    }

    long arrivalUs() {
        return inPlace ? fast.arrivalUs : Micros.of(decoded.getArrivalTimeUs());
    }

    /** The event's contract id when it is one this app was started with, else null. */
    String knownContract() {
        if (!inPlace) {
            return contractIdBytes.containsKey(decoded.getContractId()) ? decoded.getContractId() : null;
        }
        for (Map.Entry<String, byte[]> e : contractIdBytes.entrySet()) {
            if (fast.contractIs(e.getValue())) {
                return e.getKey();
            }
        }
        return null;
    }

    /** Whether the event's contract is {@code contractId} (a known one). */
    boolean contractIs(String contractId) {
        if (!inPlace) {
            return contractId.equals(decoded.getContractId());
        }
        // a request's contract id is the known one's own string, so the last one is found by identity
        if (contractId != lastContractId) {
            lastContractId = contractId;
            lastContractBytes = contractIdBytes.get(contractId);
        }
        return fast.contractIs(lastContractBytes);
    }

    /** The contract id as the event has it, for a message. */
    String contractText() {
        return inPlace ? fast.contractId() : decoded.getContractId();
    }

    /** The scenario id (decoded in full on the fast path: needed once per request). */
    String scenarioId() {
        if (decoded == null) {
            decoded = tokens.deserialize(topic, record().value());
        }
        return decoded.getScenarioId();
    }

    /** The event as a record (made from the batch frame only when needed: a refusal, a new request). */
    Record<String, byte[]> record() {
        if (record == null) {
            record = new Record<>(event.key, event.value(), event.timestamp);
        }
        return record;
    }
}
