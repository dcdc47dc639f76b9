package dev.goodput.capture;

import java.io.IOException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The JSON body of one generated request: the model, the prompt (as chat messages or a completions
 * prompt), the output cap and the contract's decoding, streaming with usage asked. A decoding field
 * the contract leaves null is not sent, so the server's own default applies (the report says so).
 */
final class RequestBody {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestBody() {
    }

    /**
     * A session's turn on the completions endpoint: the history and the new question as one text,
     * each turn's prompt and answer as they were, so that the earlier turns are the text's prefix.
     */
    static String completionsPrompt(RequestSpec spec) {
        final StringBuilder sb = new StringBuilder();
        for (String t : spec.history()) {
            sb.append(t).append("\n\n");
        }
        return sb.append(spec.prompt()).toString();
    }

    static byte[] of(RequestSpec spec, RunIdentity run, Target target) {
        final ObjectNode b = JSON.createObjectNode().put("model", target.model());
        if (target.chat()) {
            // a session's turn: its history as the conversation so far, then its new question
            final var messages = b.putArray("messages");
            for (int i = 0; i < spec.history().size(); i++) {
                messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant").put("content", spec.history().get(i));
            }
            messages.addObject().put("role", "user").put("content", spec.prompt());
        } else {
            b.put("prompt", spec.history().isEmpty() ? spec.prompt() : completionsPrompt(spec));
        }
        b.put("max_tokens", spec.maxTokens()).put("temperature", run.decoding().temperature())
                .put("top_p", run.decoding().topP()).put("stream", true);
        if (run.decoding().seed() != null) {
            b.put("seed", run.decoding().seed());
        }
        if (run.decoding().topK() != null) {
            b.put("top_k", run.decoding().topK());
        }
        if (run.decoding().ignoreEos()) {
            b.put("ignore_eos", true);
        }
        if (spec.minTokens() != null) {
            b.put("min_tokens", spec.minTokens());
        }
        final ObjectNode so = b.putObject("stream_options").put("include_usage", true);
        if (target.continuousUsage()) {
            so.put("continuous_usage_stats", true);
        }
        try {
            return JSON.writeValueAsBytes(b);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
