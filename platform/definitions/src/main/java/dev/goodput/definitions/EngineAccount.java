package dev.goodput.definitions;

/**
 * The engine's own account of a request set beside the client's, one small pure function each: the
 * engine reports what it did (llama.cpp's per-request {@code timings}), the client what it saw. For
 * latency the client's clock is the truth; these say where the time went and where the two differ.
 */
public final class EngineAccount {

    /** A request whose server-reported prompt is off its intended length by more than this share is flagged. */
    public static final double PROMPT_TOLERANCE = 0.05;

    private EngineAccount() {
    }

    /**
     * The engine's counterpart of TPOT: its generation time over the gaps between its tokens,
     * {@code predicted_ms / (predicted_n - 1)}, in microseconds. llama.cpp's own
     * {@code predicted_per_token_ms} divides by {@code predicted_n} and so reads n/(n-1) low. NaN for
     * fewer than 2 tokens.
     */
    public static double decodePerGapUs(double predictedMs, int predictedN) {
        return predictedN < 2 ? Double.NaN : predictedMs * 1000 / (predictedN - 1);
    }

    /**
     * The part of TTFT the engine does not account for: TTFT less the engine's prompt time. It is
     * the wait for a slot (llama.cpp's {@code prompt_ms} leaves it out), the transport both ways and
     * the client's own delays, which llama.cpp reports no split of.
     */
    public static long beforePrefillUs(long ttftUs, double promptMs) {
        return ttftUs - Math.round(promptMs * 1000);
    }

    /**
     * Client TPOT over engine decode time per gap, token-weighted over a set of requests: the sum of
     * the client's decode spans (end of generation minus first content chunk, {@code n - 1} gaps each, the
     * end-of-sequence step included) over the sum of
     * the engine's {@code predicted_ms} (the same gaps). 1 when the two clocks agree; NaN with no engine time.
     */
    public static double tpotRatio(long clientDecodeSpanUs, double enginePredictedMs) {
        return enginePredictedMs > 0 ? clientDecodeSpanUs / (enginePredictedMs * 1000) : Double.NaN;
    }

    /**
     * Whether the server counted a prompt more than {@link #PROMPT_TOLERANCE} away from its intended
     * length (with the chat template's measured tokens, on chat).
     */
    public static boolean promptOff(int intendedTokens, int templateTokens, int serverTokens) {
        final int expected = intendedTokens + templateTokens;
        return expected > 0 && Math.abs(serverTokens - expected) > PROMPT_TOLERANCE * expected;
    }
}
