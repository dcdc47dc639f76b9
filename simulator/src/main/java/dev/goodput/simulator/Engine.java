package dev.goodput.simulator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import dev.goodput.contract.load.Corpus;
import dev.goodput.loop.MicroClock;

/**
 * A continuous-batching inference engine in miniature. Each step admits waiting requests up to the
 * batch limit (their uncached prompt tokens add prefill time to the step), then decodes one token
 * for every running sequence. A step lasts {@code base + perSeq x batch + prefill}, so a fuller batch
 * decodes slower (ITL and TPOT rise) and a longer queue waits longer (TTFT rises); past the queue
 * limit requests are refused. Runs on the server's event-loop thread only.
 */
final class Engine {

    private static final String[] FILLER = {"lorem", "ipsum", "dolor", "sit", "amet"};

    private final SimConfig config;
    private final Corpus corpus;
    private final MicroClock clock;
    private final Consumer<SimTrace> traces;
    private final SplittableRandom random;
    private final ArrayDeque<Sequence> queue = new ArrayDeque<>();
    private final List<Sequence> batch = new ArrayList<>();
    private final PrefixCache prefixCache = new PrefixCache(200_000);
    private long stepEndNanos = Long.MAX_VALUE;

    Engine(SimConfig config, Corpus corpus, MicroClock clock, Consumer<SimTrace> traces) {
        this.config = config;
        this.corpus = corpus;
        this.clock = clock;
        this.traces = traces;
        this.random = new SplittableRandom(config.seed());
    }

    SimConfig config() {
        return config;
    }

    long nextStepNanos() {
        return stepEndNanos;
    }

    void submit(SimConnection conn, String id, long receivedUs, boolean chat, JsonNode request) {
        if (random.nextDouble() < config.errorRate()) {
            conn.respond(500, SimConnection.json("{\"error\":{\"message\":\"simulated internal error\",\"type\":\"server_error\"}}"));
            traces.accept(new SimTrace(id, receivedUs, -1, -1, 0, 0, 0, 0, 500, "error"));
            return;
        }
        if (queue.size() >= config.queueLimit()) {
            conn.respond(config.overloadStatus(), SimConnection.json("{\"error\":{\"message\":\"the server is overloaded: "
                    + queue.size() + " requests waiting\",\"type\":\"overloaded\"}}"));
            traces.accept(new SimTrace(id, receivedUs, -1, -1, 0, 0, 0, 0, config.overloadStatus(), "overload"));
            return;
        }
        final Sequence s = new Sequence(conn, id, receivedUs, chat, request);
        conn.active = s;
        queue.add(s);
        if (stepEndNanos == Long.MAX_VALUE) {
            startStep(System.nanoTime());
        }
    }

    void cancel(Sequence s) {
        s.cancelled = true;
        if (queue.remove(s) || batch.remove(s)) {
            traces.accept(s.trace(499, "cancelled"));
        }
    }

    void stepIfDue(long nowNanos) {
        if (nowNanos < stepEndNanos) {
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            final Sequence s = batch.get(i);
            if (s.cancelled || s.finished || s.stallUntilNanos > nowNanos) {
                continue;
            }
            decode(s, nowNanos);
        }
        batch.removeIf(s -> s.finished || s.cancelled);
        startStep(nowNanos);
    }

    private void startStep(long nowNanos) {
        long prefillTokens = 0;
        while (batch.size() < config.maxBatch() && !queue.isEmpty()) {
            final Sequence s = queue.poll();
            s.cachedTokens = prefixCache.cachedPrefixTokens(s.promptWords, config.prefixBlockTokens());
            prefillTokens += s.promptTokens - s.cachedTokens;
            batch.add(s);
            s.conn.startStream();
            // OpenAI-style servers open the stream with a role-only delta: it must not start the TTFT clock.
            if (s.chat) {
                s.conn.event(s.chunk("{\"role\":\"assistant\",\"content\":\"\"}", null, -1));
            }
        }
        if (batch.isEmpty()) {
            stepEndNanos = Long.MAX_VALUE;
            return;
        }
        final double stepUs = config.decodeStepBaseUs() + config.decodeStepPerSeqUs() * batch.size()
                + prefillTokens * 1e6 / config.prefillTokensPerS();
        stepEndNanos = nowNanos + (long) (stepUs * 1_000);
    }

    private void decode(Sequence s, long nowNanos) {
        if (s.conn.isClosed()) {
            cancel(s);
            return;
        }
        final boolean reasoning = s.generated < s.reasoningTokens;
        s.pending.append(s.word(s.generated)).append(' ');
        s.generated++;
        s.pendingTokens++;
        final boolean done = s.generated >= s.maxTokens;
        final boolean kindChanges = reasoning && s.generated == s.reasoningTokens;
        if (s.pendingTokens >= config.tokensPerChunk() || done || kindChanges) {
            final String text = escape(s.pending.toString());
            final String delta = s.chat
                    ? (reasoning ? "{\"reasoning_content\":\"" + text + "\"}" : "{\"content\":\"" + text + "\"}")
                    : null;
            final long us = clock.nowMicros();
            s.conn.event(s.chat ? s.chunk(delta, null, s.generated) : s.textChunk(text, null, s.generated));
            if (s.firstContentUs < 0) {
                s.firstContentUs = us;
            }
            s.lastContentUs = us;
            s.chunks++;
            s.pending.setLength(0);
            s.pendingTokens = 0;
        }
        if (s.generated == s.resetAt) {
            s.finished = true;
            s.conn.active = null;
            s.conn.reset();
            traces.accept(s.trace(200, "reset"));
            return;
        }
        if (s.generated == s.stallAt) {
            s.stallUntilNanos = nowNanos + config.stallMs() * 1_000_000;
        }
        if (done) {
            s.conn.event(s.chat ? s.chunk("{}", "length", -1) : s.textChunk("", "length", -1));
            if (s.includeUsage) {
                s.conn.event("{\"id\":\"" + s.responseId() + "\",\"object\":\"" + s.objectName() + "\",\"created\":"
                        + s.created + ",\"model\":\"" + config.model() + "\",\"choices\":[],\"usage\":" + s.usage(s.generated) + "}");
            }
            s.conn.endStream();
            s.finished = true;
            traces.accept(s.trace(200, "ok"));
        }
    }

    static String escape(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20) {
                if (sb == null) {
                    sb = new StringBuilder(s.length() + 8).append(s, 0, i);
                }
                sb.append(c == '"' ? "\\\"" : c == '\\' ? "\\\\" : String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? s : sb.toString();
    }

    /** One request in the engine. */
    final class Sequence {
        final SimConnection conn;
        final String id;
        final long receivedUs;
        final boolean chat;
        final String[] promptWords;
        final int promptTokens;
        final int maxTokens;
        final int reasoningTokens;
        final boolean includeUsage;
        final boolean continuousUsage;
        final String[] answerWords;
        final long created = System.currentTimeMillis() / 1000;
        final int resetAt;
        final int stallAt;
        final StringBuilder pending = new StringBuilder();
        int cachedTokens;
        int generated;
        int pendingTokens;
        int chunks;
        long firstContentUs = -1;
        long lastContentUs = -1;
        long stallUntilNanos;
        boolean finished;
        boolean cancelled;

        Sequence(SimConnection conn, String id, long receivedUs, boolean chat, JsonNode request) {
            this.conn = conn;
            this.id = id;
            this.receivedUs = receivedUs;
            this.chat = chat;
            final String prompt = chat ? chatPrompt(request.path("messages")) : request.path("prompt").asText("");
            this.promptWords = prompt.isBlank() ? new String[0] : prompt.trim().split("\\s+");
            this.promptTokens = promptWords.length;
            final int cap = request.has("max_completion_tokens") ? request.get("max_completion_tokens").asInt()
                    : request.path("max_tokens").asInt(16);
            this.maxTokens = Math.max(1, cap);
            this.reasoningTokens = chat ? Math.min(config.reasoningTokens(), maxTokens - 1) : 0;
            final JsonNode so = request.path("stream_options");
            this.includeUsage = so.path("include_usage").asBoolean(false);
            this.continuousUsage = so.path("continuous_usage_stats").asBoolean(false);
            final String expected = expectedAnswer(prompt);
            final boolean hit = expected != null && random.nextDouble() >= config.qualityMissRate();
            this.answerWords = (hit ? "The answer is " + expected + "." : "I am not sure.").split(" ");
            this.resetAt = random.nextDouble() < config.resetRate() ? 1 + random.nextInt(Math.max(1, maxTokens - 1)) : -1;
            this.stallAt = random.nextDouble() < config.stallRate() ? 1 + random.nextInt(Math.max(1, maxTokens - 1)) : -1;
        }

        String word(int i) {
            if (i < reasoningTokens) {
                return "thinking";
            }
            final int a = i - reasoningTokens;
            return a < answerWords.length ? answerWords[a] : FILLER[a % FILLER.length];
        }

        String responseId() {
            return (chat ? "chatcmpl-" : "cmpl-") + id;
        }

        String objectName() {
            return chat ? "chat.completion.chunk" : "text_completion";
        }

        String usage(int completion) {
            // the cached share as vLLM reports it (--enable-prompt-tokens-details): known once the request was admitted
            return "{\"prompt_tokens\":" + promptTokens + ",\"completion_tokens\":" + completion
                    + ",\"total_tokens\":" + (promptTokens + completion)
                    + ",\"prompt_tokens_details\":{\"cached_tokens\":" + cachedTokens + "}}";
        }

        String chunk(String delta, String finish, int completionSoFar) {
            return "{\"id\":\"" + responseId() + "\",\"object\":\"chat.completion.chunk\",\"created\":" + created
                    + ",\"model\":\"" + config.model() + "\",\"choices\":[{\"index\":0,\"delta\":" + delta
                    + ",\"finish_reason\":" + (finish == null ? "null" : "\"" + finish + "\"") + "}]"
                    + (continuousUsage && completionSoFar >= 0 ? ",\"usage\":" + usage(completionSoFar) : "") + "}";
        }

        String textChunk(String text, String finish, int completionSoFar) {
            return "{\"id\":\"" + responseId() + "\",\"object\":\"text_completion\",\"created\":" + created
                    + ",\"model\":\"" + config.model() + "\",\"choices\":[{\"index\":0,\"text\":\"" + text
                    + "\",\"finish_reason\":" + (finish == null ? "null" : "\"" + finish + "\"") + "}]"
                    + (continuousUsage && completionSoFar >= 0 ? ",\"usage\":" + usage(completionSoFar) : "") + "}";
        }

        SimTrace trace(int status, String outcome) {
            return new SimTrace(id, receivedUs, firstContentUs, lastContentUs, chunks, generated, promptTokens,
                    cachedTokens, status, outcome);
        }
    }

    private static String chatPrompt(JsonNode messages) {
        final StringBuilder sb = new StringBuilder();
        for (JsonNode m : messages) {
            final JsonNode c = m.path("content");
            if (c.isTextual()) {
                sb.append(c.asText()).append(' ');
            } else if (c.isArray()) {
                for (JsonNode part : c) {
                    sb.append(part.path("text").asText("")).append(' ');
                }
            }
        }
        return sb.toString().trim();
    }

    private String expectedAnswer(String prompt) {
        if (corpus == null) {
            return null;
        }
        for (Corpus.Entry e : corpus.entries()) {
            if (prompt.endsWith(e.prompt())) {
                return e.expected();
            }
        }
        return null;
    }

    /** vLLM-style automatic prefix caching: full blocks of prompt tokens, keyed by the hash of all tokens up to them. */
    static final class PrefixCache {
        private final Map<Long, Boolean> blocks;

        PrefixCache(int capacity) {
            this.blocks = new LinkedHashMap<>(1024, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                    return size() > capacity;
                }
            };
        }

        int cachedPrefixTokens(String[] words, int blockTokens) {
            long hash = 1125899906842597L;
            int cached = 0;
            boolean missed = false;
            final int fullBlocks = words.length / blockTokens;
            for (int b = 0; b < fullBlocks; b++) {
                for (int i = b * blockTokens; i < (b + 1) * blockTokens; i++) {
                    hash = 31 * hash + words[i].hashCode();
                }
                if (!missed && blocks.get(hash) != null) {
                    cached += blockTokens;
                } else {
                    missed = true;
                    blocks.put(hash, Boolean.TRUE);
                }
            }
            // The last prompt token is always computed, as in real engines, to produce the first output.
            return Math.min(cached, Math.max(0, words.length - 1));
        }
    }
}
