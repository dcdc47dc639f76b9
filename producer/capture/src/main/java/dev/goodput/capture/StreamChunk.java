package dev.goodput.capture;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.goodput.avro.ChunkKind;

/**
 * What one OpenAI-style stream event carries, read with Jackson's streaming parser (no tree): the
 * text of {@code choices[0]} (chat {@code delta.content}, {@code delta.reasoning_content} or
 * {@code delta.reasoning}, completions {@code text}), whether it has tool-call deltas, its finish
 * reason, the usage report if present, and an in-stream error. Reused across events of one stream.
 */
public final class StreamChunk {

    /** The chunk's kind, in the order of TokenEvent's ChunkKind. */
    public enum Kind {
        NONE, REASONING, ANSWER, TOOL_CALL;

        /** As a token event records it: a content chunk that is neither reasoning nor a tool call is an answer. */
        ChunkKind recorded() {
            return switch (this) {
                case REASONING -> ChunkKind.REASONING;
                case TOOL_CALL -> ChunkKind.TOOL_CALL;
                default -> ChunkKind.ANSWER;
            };
        }
    }

    private static final JsonFactory JSON = new JsonFactory();

    private final StringBuilder answer = new StringBuilder();
    private int reasoningChars;
    /** The reasoning text, kept only while someone counts the text's tokens ({@link #keepReasoning}). */
    private StringBuilder reasoning;
    private boolean toolCall;
    private boolean hasChoice;
    private String finishReason;
    private int usageCompletionTokens = -1;
    private int usagePromptTokens = -1;
    private int usageCachedTokens = -1;
    private String error;
    private String errorType;
    private String fingerprint;
    /** llama.cpp's per-request timings, on the final chunk; null when the chunk has none. */
    private double[] timings;

    /**
     * Parses one event's data.
     *
     * @throws IOException when the data is not the JSON of a stream chunk
     */
    public void parse(byte[] data, int length) throws IOException {
        answer.setLength(0);
        reasoningChars = 0;
        if (reasoning != null) {
            reasoning.setLength(0);
        }
        toolCall = false;
        hasChoice = false;
        finishReason = null;
        usageCompletionTokens = -1;
        usagePromptTokens = -1;
        usageCachedTokens = -1;
        error = null;
        errorType = null;
        timings = null;
        try (JsonParser p = JSON.createParser(data, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("stream event is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String name = p.currentName();
                final JsonToken t = p.nextToken();
                switch (name) {
                    case "choices" -> choices(p, t);
                    case "usage" -> usage(p, t);
                    case "error" -> error = t == JsonToken.START_OBJECT ? errorMessage(p) : p.getValueAsString("error");
                    case "timings" -> timings(p, t);
                    case "system_fingerprint" -> {
                        if (t == JsonToken.VALUE_STRING && fingerprint == null) {
                            fingerprint = p.getText();
                        }
                    }
                    default -> p.skipChildren();
                }
            }
        }
    }

    private void choices(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        boolean first = true;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (first && p.currentToken() == JsonToken.START_OBJECT) {
                hasChoice = true;
                choice(p);
                first = false;
            } else {
                p.skipChildren();
            }
        }
    }

    private void choice(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String name = p.currentName();
            final JsonToken t = p.nextToken();
            switch (name) {
                case "text" -> appendText(p, t, true);
                case "delta" -> delta(p, t);
                case "finish_reason" -> finishReason = t == JsonToken.VALUE_NULL ? null : p.getText();
                default -> p.skipChildren();
            }
        }
    }

    private void delta(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String name = p.currentName();
            final JsonToken v = p.nextToken();
            switch (name) {
                case "content" -> appendText(p, v, true);
                case "reasoning_content", "reasoning" -> appendText(p, v, false);
                case "tool_calls" -> {
                    if (v == JsonToken.START_ARRAY) {
                        toolCall |= p.nextToken() != JsonToken.END_ARRAY;
                        if (p.currentToken() != JsonToken.END_ARRAY) {
                            p.skipChildren();
                            while (p.nextToken() != JsonToken.END_ARRAY) {
                                p.skipChildren();
                            }
                        }
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
    }

    private void appendText(JsonParser p, JsonToken t, boolean isAnswer) throws IOException {
        if (t != JsonToken.VALUE_STRING) {
            p.skipChildren();
            return;
        }
        if (isAnswer) {
            answer.append(p.getText());
        } else {
            reasoningChars += p.getTextLength();
            if (reasoning != null) {
                reasoning.append(p.getText());
            }
        }
    }

    private void usage(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String name = p.currentName();
            final JsonToken v = p.nextToken();
            if ("completion_tokens".equals(name) && v == JsonToken.VALUE_NUMBER_INT) {
                usageCompletionTokens = p.getIntValue();
            } else if ("prompt_tokens".equals(name) && v == JsonToken.VALUE_NUMBER_INT) {
                usagePromptTokens = p.getIntValue();
            } else if ("prompt_tokens_details".equals(name) && v == JsonToken.START_OBJECT) {
                promptDetails(p);
            } else {
                p.skipChildren();
            }
        }
    }

    /** OpenAI's {@code usage.prompt_tokens_details}: {@code cached_tokens}, the prompt tokens served from the cache. */
    private void promptDetails(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String name = p.currentName();
            final JsonToken v = p.nextToken();
            if ("cached_tokens".equals(name) && v == JsonToken.VALUE_NUMBER_INT) {
                usageCachedTokens = p.getIntValue();
            } else {
                p.skipChildren();
            }
        }
    }

    private String errorMessage(JsonParser p) throws IOException {
        String message = "error";
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String name = p.currentName();
            p.nextToken();
            if ("message".equals(name)) {
                message = p.getValueAsString(message);
            } else if ("type".equals(name)) {
                errorType = p.getValueAsString();
            } else {
                p.skipChildren();
            }
        }
        return message;
    }

    /** llama.cpp's {@code timings}: prompt_n, prompt_ms, predicted_n, predicted_ms, cache_n (-1 when absent). */
    private void timings(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        final double[] v = {-1, -1, -1, -1, -1};
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String name = p.currentName();
            final JsonToken n = p.nextToken();
            final int i = switch (name) {
                case "prompt_n" -> 0;
                case "prompt_ms" -> 1;
                case "predicted_n" -> 2;
                case "predicted_ms" -> 3;
                case "cache_n" -> 4;
                default -> -1;
            };
            if (i >= 0 && n.isNumeric()) {
                v[i] = p.getDoubleValue();
            } else {
                p.skipChildren();
            }
        }
        if (v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0) {
            timings = v;
        }
    }

    /** True when the event carries a choice, with or without text (vLLM's bench serve starts TTFT at the first one). */
    public boolean hasChoice() {
        return hasChoice;
    }

    /** What kind of content the chunk carries; NONE for role-only, empty and usage-only chunks. */
    public Kind kind() {
        if (answer.length() > 0) {
            return Kind.ANSWER;
        }
        if (reasoningChars > 0) {
            return Kind.REASONING;
        }
        return toolCall ? Kind.TOOL_CALL : Kind.NONE;
    }

    /** Keeps each event's reasoning text too (for a tokenizer to count), not only its length. */
    public void keepReasoning() {
        reasoning = new StringBuilder();
    }

    /** This event's reasoning text; empty unless {@link #keepReasoning} was asked. */
    public CharSequence reasoningText() {
        return reasoning == null ? "" : reasoning;
    }

    public CharSequence answerText() {
        return answer;
    }

    public String finishReason() {
        return finishReason;
    }

    /** Cumulative completion tokens from a usage report on this chunk, or -1. */
    public int usageCompletionTokens() {
        return usageCompletionTokens;
    }

    public int usagePromptTokens() {
        return usagePromptTokens;
    }

    /** Prompt tokens the server served from its prefix cache, from a usage report on this chunk ({@code -1}: not said). */
    public int usageCachedTokens() {
        return usageCachedTokens;
    }

    /** An error the server reported inside the stream, or null. */
    public String error() {
        return error;
    }

    /** The type the server gave its in-stream error ({@code error.type}), or null. */
    public String errorType() {
        return errorType;
    }

    /** The first {@code system_fingerprint} any event of the stream carried (the engine's build), or null. */
    public String fingerprint() {
        return fingerprint;
    }

    /** This event's engine timings: {prompt_n, prompt_ms, predicted_n, predicted_ms, cache_n (-1: absent)}, or null. */
    public double[] timings() {
        return timings;
    }
}
