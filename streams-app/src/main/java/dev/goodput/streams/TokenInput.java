package dev.goodput.streams;

import java.util.Arrays;
import java.util.Set;

import dev.goodput.assembly.Chunk;
import dev.goodput.avro.TokenEvent;
import dev.goodput.definitions.Micros;
import dev.goodput.records.TokenRuns;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The chunk being processed: one chunk of a token event's run ({@link TokenRuns}), with what the
 * assembler needs of it. The run is held flat (ids, then each chunk's index and arrival time), read
 * in place by {@link RunReader} or copied from an event decoded in full; a run of one (another
 * producer's per-chunk event) is the same path. Not thread-safe: one per processor.
 */
final class TokenInput implements Chunk {
    private final RunReader reader;
    private final Deserializer<TokenEvent> events;
    private final Serializer<TokenEvent> singles;
    private final String topic;
    private final Set<String> contractIds;
    private final String selectedRunId;

    private Record<String, byte[]> record;
    /** The run decoded in full: set when it was read that way, else only once a refusal needs it. */
    private TokenEvent decoded;
    private String contractId;
    private String runId;
    private String scenarioId;
    private boolean warmup;
    private int size;
    private int[] indices = new int[64];
    private long[] arrivals = new long[64];
    private int at;
    private Record<String, byte[]> single;

    /**
     * @param events  decodes a run read in place in full, for a refusal of one of its chunks
     * @param singles writes one chunk of a run as an event of its own, for a refusal of that chunk
     *                alone (the DLQ gets that chunk, not the whole run again)
     */
    TokenInput(RunReader reader, Deserializer<TokenEvent> events, Serializer<TokenEvent> singles, String topic,
               Set<String> contractIds, String runId) {
        this.reader = reader;
        this.events = events;
        this.singles = singles;
        this.topic = topic;
        this.contractIds = contractIds;
        this.selectedRunId = runId;
    }

    /** Reads a token event's run in place; false when it must be decoded in full and given to {@link #run}. */
    boolean read(Record<String, byte[]> r) {
        this.record = r;
        this.decoded = null;
        if (!reader.read(r.value(), this)) {
            return false;
        }
        at(0);
        return true;
    }

    /** A token event decoded in full and the record it came in; positions on its first chunk. */
    void run(Record<String, byte[]> r, TokenEvent run) {
        this.record = r;
        this.decoded = run;
        begin(run.getContractId(), run.getRunId(), run.getScenarioId(), run.getWarmup());
        final int n = TokenRuns.size(run);
        for (int i = 0; i < n; i++) {
            add(TokenRuns.chunkIndex(run, i), TokenRuns.arrivalUs(run, i));
        }
        at(0);
    }

    /** Starts a run (the reader's and {@link #run}'s way in). */
    void begin(String contract, String run, String scenario, boolean warmupEvent) {
        this.contractId = contract;
        this.runId = run;
        this.scenarioId = scenario;
        this.warmup = warmupEvent;
        this.size = 0;
    }

    /** Adds the run's next chunk. */
    void add(int index, long arrivalUs) {
        if (size == indices.length) {
            indices = Arrays.copyOf(indices, size * 2);
            arrivals = Arrays.copyOf(arrivals, size * 2);
        }
        indices[size] = index;
        arrivals[size] = arrivalUs;
        size++;
    }

    int size() {
        return size;
    }

    /** Positions on the run's {@code i}-th chunk. */
    void at(int i) {
        this.at = i;
        this.single = null;
    }

    @Override
    public String requestId() {
        return record.key();
    }

    @Override
    public long timestampMs() {
        return record.timestamp();
    }

    /** Warm-up events, and events of runs a replay did not select, are not results: skipped, not refused. */
    @Override
    public boolean skipped() {
        return warmup || selectedRunId != null && !selectedRunId.equals(runId);
    }

    @Override
    public int chunkIndex() {
        return indices[at];
    }

    @Override
    public long arrivalUs() {
        return arrivals[at];
    }

    /** The event's contract id when it is one this app was started with, else null. */
    @Override
    public String knownContract() {
        return contractIds.contains(contractId) ? contractId : null;
    }

    /**
     * Whether the event's contract is {@code contract}. Asked for every chunk of a run against its
     * request's contract id, a string of its own with the same text: once equal, the run takes that
     * string, and its other chunks compare references, not 64 characters each.
     */
    @Override
    public boolean contractIs(String contract) {
        if (contract == contractId) {
            return true;
        }
        if (contract.equals(contractId)) {
            contractId = contract;
            return true;
        }
        return false;
    }

    /** The contract id as the event has it, for a message. */
    @Override
    public String contractText() {
        return contractId;
    }

    @Override
    public String scenarioId() {
        return scenarioId;
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
            if (decoded == null) {
                decoded = events.deserialize(topic, record.value());
            }
            final TokenEvent chunk = TokenRuns.single(decoded, at);
            // what was read in place is what the chunk says; a decoding that disagrees is a defect here
            if (chunk.getChunkIndex() != chunkIndex() || Micros.of(chunk.getArrivalTimeUs()) != arrivalUs()) {
                throw new IllegalStateException("chunk " + at + " of a run read in place as " + chunkIndex() + " at "
                        + arrivalUs() + " decodes as " + chunk.getChunkIndex() + " at " + Micros.of(chunk.getArrivalTimeUs()));
            }
            single = new Record<>(record.key(), singles.serialize(topic, chunk), record.timestamp(), record.headers());
        }
        return single;
    }
}
