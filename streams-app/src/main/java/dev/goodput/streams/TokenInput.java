package dev.goodput.streams;

import java.util.Set;

import dev.goodput.avro.TokenEvent;
import dev.goodput.records.TokenRuns;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The chunk being processed: one chunk of a token event's run ({@link TokenRuns}), with what the
 * assembler needs of it. A run of one (another producer's per-chunk event) is the same path. Not
 * thread-safe: one per processor.
 */
final class TokenInput {
    private final Serializer<TokenEvent> singles;
    private final String topic;
    private final Set<String> contractIds;
    private final String selectedRunId;

    private Record<String, byte[]> record;
    private TokenEvent run;
    private int size;
    private int at;
    private Record<String, byte[]> single;

    /**
     * @param singles writes one chunk of a run as an event of its own, for a refusal of that chunk
     *                alone (the DLQ gets that chunk, not the whole run again)
     */
    TokenInput(Serializer<TokenEvent> singles, String topic, Set<String> contractIds, String runId) {
        this.singles = singles;
        this.topic = topic;
        this.contractIds = contractIds;
        this.selectedRunId = runId;
    }

    /** A decoded token event and the record it came in; positions on its first chunk. */
    void run(Record<String, byte[]> r, TokenEvent decoded) {
        this.record = r;
        this.run = decoded;
        this.size = TokenRuns.size(decoded);
        at(0);
    }

    int size() {
        return size;
    }

    /** Positions on the run's {@code i}-th chunk. */
    void at(int i) {
        this.at = i;
        this.single = null;
    }

    String requestId() {
        return record.key();
    }

    long timestampMs() {
        return record.timestamp();
    }

    /** Warm-up events, and events of runs a replay did not select, are not results: skipped, not refused. */
    boolean skipped() {
        return run.getWarmup() || selectedRunId != null && !selectedRunId.equals(run.getRunId());
    }

    int chunkIndex() {
        return TokenRuns.chunkIndex(run, at);
    }

    long arrivalUs() {
        return TokenRuns.arrivalUs(run, at);
    }

    /** The event's contract id when it is one this app was started with, else null. */
    String knownContract() {
        return contractIds.contains(run.getContractId()) ? run.getContractId() : null;
    }

    /** Whether the event's contract is {@code contractId}. */
    boolean contractIs(String contractId) {
        return contractId.equals(run.getContractId());
    }

    /** The contract id as the event has it, for a message. */
    String contractText() {
        return run.getContractId();
    }

    String scenarioId() {
        return run.getScenarioId();
    }

    /**
     * The chunk as a record, for a refusal: the record itself for a run of one (its original bytes),
     * else the chunk alone as an event of its own, with the run's key, time and headers.
     */
    Record<String, byte[]> record() {
        if (size == 1) {
            return record;
        }
        if (single == null) {
            single = new Record<>(record.key(), singles.serialize(topic, TokenRuns.single(run, at)), record.timestamp(),
                    record.headers());
        }
        return single;
    }
}
