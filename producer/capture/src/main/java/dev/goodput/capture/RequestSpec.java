package dev.goodput.capture;

import java.util.List;

/**
 * One request to send.
 *
 * @param requestId    unique id, the key of its events
 * @param scenarioId   the load-matrix cell
 * @param prompt       prompt text (a session's turn: its new question)
 * @param promptTokens prompt tokens under the contract's tokenizer (a session's turn: of its new question)
 * @param expected     the corpus's expected answer, for the quality metric
 * @param maxTokens    output cap sent as max_tokens
 * @param minTokens    answer-length floor sent as min_tokens (with ignore_eos), or null
 * @param intendedUs   when the arrival schedule says it should be sent: latencies are measured from here
 * @param warmup       sent during warm-up: published, marked, excluded from results
 * @param history      a session's earlier turns, in order: each turn's prompt, then the answer the server gave
 *                     it (sent as user and assistant messages before the prompt); empty outside a session
 * @param sessionId    the session this request is a turn of, or null
 * @param turn         its turn in the session, from 1, or null
 */
public record RequestSpec(String requestId, String scenarioId, String prompt, int promptTokens, String expected,
                          int maxTokens, Integer minTokens, long intendedUs, boolean warmup, List<String> history,
                          String sessionId, Integer turn) {

    public RequestSpec {
        history = history == null ? List.of() : List.copyOf(history);
        if (history.size() % 2 != 0) {
            throw new IllegalArgumentException("a session's history holds prompt and answer pairs, not " + history.size() + " texts");
        }
    }

    /** A request outside any session. */
    public RequestSpec(String requestId, String scenarioId, String prompt, int promptTokens, String expected, int maxTokens,
                       Integer minTokens, long intendedUs, boolean warmup) {
        this(requestId, scenarioId, prompt, promptTokens, expected, maxTokens, minTokens, intendedUs, warmup, List.of(), null, null);
    }

    /** Without an answer-length floor. */
    public RequestSpec(String requestId, String scenarioId, String prompt, int promptTokens, String expected, int maxTokens,
                       long intendedUs, boolean warmup) {
        this(requestId, scenarioId, prompt, promptTokens, expected, maxTokens, null, intendedUs, warmup);
    }
}
