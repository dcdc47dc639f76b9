package dev.goodput.capture;

/**
 * One request to send.
 *
 * @param requestId    unique id, the key of its events
 * @param scenarioId   the load-matrix cell
 * @param prompt       prompt text
 * @param promptTokens prompt tokens under the contract's tokenizer
 * @param expected     the corpus's expected answer, for the quality metric
 * @param maxTokens    output cap sent as max_tokens
 * @param minTokens    answer-length floor sent as min_tokens (with ignore_eos), or null
 * @param intendedUs   when the arrival schedule says it should be sent: latencies are measured from here
 * @param warmup       sent during warm-up: published, marked, excluded from results
 */
public record RequestSpec(String requestId, String scenarioId, String prompt, int promptTokens, String expected,
                          int maxTokens, Integer minTokens, long intendedUs, boolean warmup) {

    /** Without an answer-length floor. */
    public RequestSpec(String requestId, String scenarioId, String prompt, int promptTokens, String expected, int maxTokens,
                       long intendedUs, boolean warmup) {
        this(requestId, scenarioId, prompt, promptTokens, expected, maxTokens, null, intendedUs, warmup);
    }
}
