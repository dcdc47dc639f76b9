package dev.goodput.capture;

import java.io.IOException;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** What a failed request's event says of its failure: where a timeout waited, what a refusal counted. */
final class Failures {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Failures() {
    }

    /**
     * A refused request's prompt size as the server counted it (llama.cpp's context error gives
     * {@code n_prompt_tokens}), else the intended size.
     */
    static int refusedPromptTokens(int httpStatus, CharSequence errorBody, int intended) {
        if (httpStatus < 400 || errorBody.length() == 0) {
            return intended;
        }
        try {
            final JsonNode n = JSON.readTree(errorBody.toString()).path("error").path("n_prompt_tokens");
            return n.canConvertToInt() ? n.intValue() : intended;
        } catch (IOException | RuntimeException notJson) {
            return intended;
        }
    }

    /**
     * Where a timed-out request waited. Before the response head, only the request timeout applies: a
     * server that queues requests for a free slot sends nothing while they wait, and that wait is
     * TTFT, not a stall.
     */
    static String timeoutReason(Throwable failure, int httpStatus, Target target) {
        final String m = failure.getMessage() == null ? "" : failure.getMessage().toLowerCase(Locale.ROOT);
        if (m.contains("idle")) {
            return "stalled: no bytes for " + target.stallTimeout().toMillis() + " ms after the response began";
        }
        if (httpStatus < 0) {
            return "no response head within " + target.requestTimeout().toMillis()
                    + " ms of the send: waited at the server (queued for a slot?) or on the way";
        }
        return "not finished within " + target.requestTimeout().toMillis() + " ms";
    }

    static String describe(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
