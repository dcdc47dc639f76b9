package dev.goodput.streams;

import dev.goodput.assembly.Chunk;
import dev.goodput.assembly.Refusal;
import dev.goodput.assembly.RequestFacts;
import dev.goodput.assembly.RequestRules;
import dev.goodput.avro.RequestEvent;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Micros;
import dev.goodput.records.DoorChecks;
import org.apache.kafka.common.serialization.Deserializer;

/** The request engine's view of the Avro request event and of the checks at the door ({@link DoorChecks}). */
final class EventRules implements RequestRules<RequestEvent> {
    private final StreamsSettings config;
    private final int maxChunks;
    private final RequestReader reader;
    private final Deserializer<RequestEvent> requests;

    EventRules(StreamsSettings config, RequestReader reader, Deserializer<RequestEvent> requests) {
        this.config = config;
        this.maxChunks = DoorChecks.maxChunks(config.contracts().values());
        this.reader = reader;
        this.requests = requests;
    }

    @Override
    public String id(RequestEvent r) {
        return r.getRequestId();
    }

    @Override
    public String contractId(RequestEvent r) {
        return r.getContractId();
    }

    @Override
    public String scenarioId(RequestEvent r) {
        return r.getScenarioId();
    }

    @Override
    public boolean warmup(RequestEvent r) {
        return r.getWarmup();
    }

    @Override
    public long completionUs(RequestEvent r) {
        return Micros.of(r.getCompletionTimeUs());
    }

    @Override
    public int contentChunks(RequestEvent r) {
        return r.getContentChunks();
    }

    @Override
    public boolean selected(RequestEvent r) {
        return config.selection().takes(r.getRunId(), completionUs(r));
    }

    @Override
    public Refusal check(RequestEvent r, long timestampMs) {
        return refusal(DoorChecks.request(r, timestampMs, maxChunks, config.contracts().keySet()));
    }

    @Override
    public Refusal check(Chunk c) {
        return refusal(DoorChecks.token(c.chunkIndex(), c.arrivalUs(), c.timestampMs(), maxChunks));
    }

    @Override
    public Refusal unknownContract(String contractText) {
        return refusal(DoorChecks.unknownContract(contractText));
    }

    /** Read in place where the layout is known, else decoded by Avro. */
    @Override
    public RequestEvent decode(byte[] bytes) {
        final RequestEvent inPlace = reader.read(bytes);
        return inPlace != null ? inPlace : requests.deserialize(config.topics().requests(), bytes);
    }

    @Override
    public RequestFacts facts(RequestEvent r) {
        return Verdicts.facts(r);
    }

    @Override
    public Contract.Objectives objectives(String contractId) {
        return config.objectives(config.contracts().get(contractId));
    }

    @Override
    public Double qualityFloor() {
        return config.selection().qualityFloor();
    }

    private static Refusal refusal(DoorChecks.Problem p) {
        return p == null ? null : new Refusal(p.reason(), p.message());
    }
}
