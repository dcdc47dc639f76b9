package dev.goodput.records;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenCountSource;

/**
 * What the server itself counted for a request, where it said. A request that timed out, lost its
 * connection or streamed no usage has no server count: its {@code prompt_tokens} then holds the
 * generator's own size, which says nothing about whether the contract's tokenizer is the target's,
 * so the prompt check leaves it out and counts it as not counted.
 */
public final class ServerCounts {
    private ServerCounts() {
    }

    /** The prompt tokens the server reported in the request's usage, or null when it reported none. */
    public static Integer promptTokens(RequestEvent e) {
        return e.getOutputTokensSource() == TokenCountSource.SERVER_USAGE ? e.getPromptTokens() : null;
    }
}
