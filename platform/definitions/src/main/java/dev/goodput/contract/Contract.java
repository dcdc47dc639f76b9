package dev.goodput.contract;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The frozen benchmark contract: the fourteen fields that must be equal for two results to be
 * comparable. {@link #id()} is the sha256 of its canonical JSON form and is stamped on every event.
 * Typed views cover the fields the pipeline computes with; {@link #canonicalJson()} holds them all.
 */
public record Contract(
        String id,
        String canonicalJson,
        Map<String, Object> canonical,
        String modelName,
        String modelRevision,
        String tokenizerName,
        Corpus corpus,
        int outputCapTokens,
        Decoding decoding,
        Hardware hardware,
        String cacheState,
        Arrival arrival,
        Quality quality,
        Objectives objectives) {

    /** The prompt corpus: a JSON-lines file and the sha256 its bytes must have. */
    public record Corpus(String path, String sha256) {
    }

    /** Decoding settings sent to the target. */
    public record Decoding(double temperature, double topP, Integer topK, Long seed, boolean ignoreEos) {

        /** The fields left null: never sent, so the server's own default applies (llama.cpp's top_k is 40). */
        public List<String> notSent() {
            final List<String> out = new ArrayList<>();
            if (topK == null) {
                out.add("top_k");
            }
            if (seed == null) {
                out.add("seed");
            }
            return out;
        }
    }

    /** What serves the target and how it is priced. */
    public record Hardware(String gpuType, int gpuCount, String priceKey, Double peakOutputTokensPerS) {
    }

    /** The arrival process of requests. */
    public record Arrival(String process, Double rateRps, Double burstiness, Integer concurrency, double warmupS) {
        /**
         * Traffic nobody generated, watched server-side through the engine's or gateway's spans
         * ({@code goodput spans}): times run from the request's arrival at the server, on its clock,
         * and no per-chunk time is known, so ITL is not measured.
         */
        public static final String OBSERVED_SERVER_SIDE = "observed_server_side";

        /** Whether the traffic was observed server-side (spans) rather than generated or seen by a client. */
        public boolean serverSide() {
            return OBSERVED_SERVER_SIDE.equals(process);
        }
    }

    /** The quality metric and its floor (pass when score >= floor). */
    public record Quality(String metric, double floor) {
    }

    /** Latency objectives in microseconds; empty when the contract sets none for that metric. */
    public record Objectives(Optional<Long> ttftUs, Optional<Long> tpotUs, Optional<Long> e2eUs) {
        public static final Objectives NONE = new Objectives(Optional.empty(), Optional.empty(), Optional.empty());

        /** From milliseconds (fractions allowed), the unit the peers' --goodput flags use. */
        public static Objectives ofMillis(Double ttftMs, Double tpotMs, Double e2eMs) {
            return new Objectives(us(ttftMs), us(tpotMs), us(e2eMs));
        }

        private static Optional<Long> us(Double ms) {
            return ms == null ? Optional.empty()
                    : Optional.of(new BigDecimal(Double.toString(ms)).movePointRight(3)
                            .setScale(0, RoundingMode.HALF_UP).longValueExact());
        }
    }
}
