package dev.goodput.assembly.log;

import java.nio.ByteBuffer;
import java.util.Set;

import dev.goodput.assembly.Chunk;
import dev.goodput.assembly.Refusal;
import dev.goodput.assembly.RequestFacts;
import dev.goodput.assembly.RequestRules;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.WindowTotals;
import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.Varint;

/** A request event as a test or a benchmark writes it: only what the engine asks of one. */
public record TestRequest(String id, String contractId, String scenarioId, long completionUs, int contentChunks,
                          boolean warmup) {

    /** The contracts the rules know; an event of any other is refused as unknown. */
    public static final Set<String> CONTRACTS = Set.of("c1", "c2");

    public byte[] encode() {
        final ByteSink out = new ByteSink(48);
        Varint.writeString(out, id);
        Varint.writeString(out, contractId);
        Varint.writeString(out, scenarioId);
        Varint.writeLong(out, completionUs);
        Varint.writeLong(out, contentChunks);
        Varint.writeLong(out, warmup ? 1 : 0);
        return out.toByteArray();
    }

    public static TestRequest decode(byte[] bytes) {
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        return new TestRequest(Varint.readString(in), Varint.readString(in), Varint.readString(in), Varint.readLong(in),
                (int) Varint.readLong(in), Varint.readLong(in) == 1);
    }

    /** The rules over this type: the door refuses a negative chunk index and a contract it does not know. */
    public static final RequestRules<TestRequest> RULES = new RequestRules<>() {
        @Override
        public String id(TestRequest r) {
            return r.id();
        }

        @Override
        public String contractId(TestRequest r) {
            return r.contractId();
        }

        @Override
        public String scenarioId(TestRequest r) {
            return r.scenarioId();
        }

        @Override
        public boolean warmup(TestRequest r) {
            return r.warmup();
        }

        @Override
        public long completionUs(TestRequest r) {
            return r.completionUs();
        }

        @Override
        public int contentChunks(TestRequest r) {
            return r.contentChunks();
        }

        @Override
        public boolean selected(TestRequest r) {
            return true;
        }

        @Override
        public Refusal check(TestRequest r, long timestampMs) {
            return CONTRACTS.contains(r.contractId()) ? null : unknownContract(r.contractId());
        }

        @Override
        public Refusal check(Chunk c) {
            return c.chunkIndex() < 0 ? new Refusal("invalid", "chunk index " + c.chunkIndex()) : null;
        }

        @Override
        public Refusal unknownContract(String contractText) {
            return new Refusal("unknown_contract", "contract " + contractText);
        }

        @Override
        public TestRequest decode(byte[] bytes) {
            return TestRequest.decode(bytes);
        }

        /**
         * Facts that vary with the request: sent 1 s before its completion, its first chunk a TTFT
         * of 50 to 550 ms after (the objective is 300 ms), a token a content chunk, every fifth one
         * failed, its prompt partly cached for every other one.
         */
        @Override
        public RequestFacts facts(TestRequest r) {
            final int n = Math.floorMod(r.id().hashCode(), 1_000);
            final boolean failed = n % 5 == 0;
            final long sent = r.completionUs() - 1_000_000;
            return new RequestFacts(r.contractId(), r.scenarioId(), failed ? WindowTotals.Status.ERROR : WindowTotals.Status.OK,
                    failed ? "http_500" : null, sent, sent + n, r.completionUs(), failed ? RequestFacts.NONE : sent + 50_000 + n * 500L,
                    failed ? RequestFacts.NONE : r.completionUs(), RequestFacts.NONE, r.contentChunks(), r.contentChunks(),
                    100 + n, n % 2 == 0 ? n / 2 : -1, n % 3 != 0, Double.NaN);
        }

        @Override
        public Contract.Objectives objectives(String contractId) {
            return Contract.Objectives.ofMillis(300.0, null, null);
        }

        @Override
        public Double qualityFloor() {
            return null;
        }
    };
}
