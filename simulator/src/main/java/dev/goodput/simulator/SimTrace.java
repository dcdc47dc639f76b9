package dev.goodput.simulator;

/**
 * The simulator's own record of one request, in microseconds on the shared clock: what really
 * happened on the server, against which the generator's measurements are checked.
 *
 * @param requestId           the client's X-Request-Id header, or a generated id
 * @param receivedUs          when the whole request had been read
 * @param firstContentUs      when the first content chunk was handed to the socket, or -1
 * @param lastContentUs       when the last content chunk was handed to the socket, or -1
 * @param contentChunks       content chunks written
 * @param outputTokens        tokens generated
 * @param promptTokens        prompt tokens
 * @param cachedPromptTokens  prompt tokens served from the prefix cache
 * @param status              HTTP status sent
 * @param outcome             ok, error, reset, overload, cancelled, bad_request
 */
public record SimTrace(String requestId, long receivedUs, long firstContentUs, long lastContentUs, int contentChunks,
                       int outputTokens, int promptTokens, int cachedPromptTokens, int status, String outcome) {
}
