package dev.goodput.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.ServerTimings;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.capture.tokens.TokenCounter;
import dev.goodput.config.Redact;
import dev.goodput.definitions.Micros;
import dev.goodput.loop.MicroClock;
import dev.goodput.records.TokenRuns;
import org.eclipse.jetty.client.HttpClient;

/**
 * One streamed request, from dispatch to its request event. Chunks are timed when their bytes are
 * handed over by the socket reader (all events of one read share that instant), parsed as they
 * arrive, and each content chunk is published as a token event at once. Every ending (success,
 * HTTP error, reset, stall, malformed stream, no content, abandonment) yields exactly one request
 * event. Nothing is retried silently: a request whose reused connection failed before any byte of
 * its response is sent once more on a new one by the client, and the event records it.
 */
public final class RequestExecution implements SseParser.Listener, NioHttpClient.Exchange {

    private static final int MAX_ERROR_BODY = 2048;

    private final RequestSpec spec;
    private final RunIdentity run;
    private final Target target;
    private final MicroClock clock;
    private final EventSink sink;
    private final Consumer<RequestEvent> onDone;
    private final SseParser sse = new SseParser(this);
    private final StreamChunk chunk = new StreamChunk();
    private final StringBuilder answer = new StringBuilder();
    private final StringBuilder errorBody = new StringBuilder();
    private Consumer<Throwable> abort = cause -> { };
    /** False for observed traffic (the proxy): no expected answer to score against. */
    private boolean judgeQuality = true;
    /** An observed exchange is never cut short for a bad event: its client still gets every byte. */
    private boolean observed;

    private volatile long actualSendUs = -1;
    private int httpStatus = -1;
    private long readUs;
    private long firstChunkUs = -1;
    private long firstAnswerUs = -1;
    private long lastChunkUs = -1;
    private long firstChoiceUs = -1;
    private long lastChoiceUs = -1;
    private int contentChunks;
    private int lastUsageTokens;
    private int usageCompletion = -1;
    private int usagePrompt = -1;
    private int usageCached = -1;
    private boolean done;
    private boolean finishSeen;
    private String protocolError;
    private String serverError;
    private double[] serverTimings;
    private volatile String resendReason;
    /** Counts the streamed text's tokens when the server reports no usage; null: content chunks are counted. */
    private TokenCounter counter;
    private StringBuilder streamed;

    public RequestExecution(RequestSpec spec, RunIdentity run, Target target, MicroClock clock, EventSink sink,
                            Consumer<RequestEvent> onDone) {
        this.spec = spec;
        this.run = run;
        this.target = target;
        this.clock = clock;
        this.sink = sink;
        this.onDone = onDone;
    }

    /**
     * An observer of an exchange someone else sends (the proxy): it is fed the exchange's send,
     * status, body bytes and end, and publishes the same events a generated request would. The
     * contract's quality rule is applied only where it needs no expected answer (valid_json);
     * otherwise the request passes it unjudged, with no score.
     *
     * @param cancel what abandons the exchange upstream
     */
    public static RequestExecution observing(RequestSpec spec, RunIdentity run, Target target, MicroClock clock, EventSink sink,
                                             Consumer<RequestEvent> onDone, Consumer<Throwable> cancel) {
        final RequestExecution e = new RequestExecution(spec, run, target, clock, sink, onDone);
        e.judgeQuality = "valid_json".equals(run.qualityMetric());
        e.observed = true;
        e.abort = cancel;
        return e;
    }

    /**
     * Without a usage report, the contract's tokenizer counts the streamed text (answer, reasoning
     * and tool-call text alike) instead of the content chunks; the simulator's whitespace tokenizer
     * keeps the chunk count.
     */
    public RequestExecution countingWith(TokenCounter tokenizer) {
        if (tokenizer != null && tokenizer != TokenCounter.WHITESPACE) {
            this.counter = tokenizer;
            this.streamed = new StringBuilder();
            chunk.keepReasoning();
        }
        return this;
    }

    /** Sends the request; returns at once. Plain-HTTP targets use the selector client, TLS targets Jetty. */
    public void start(StreamingClient client) {
        prepare(client).run();
    }

    /**
     * Builds the request now and returns what sends it, so that a dispatcher can do the building
     * before the intended send time and only the send after it.
     */
    public Runnable prepare(StreamingClient client) {
        if ("http".equals(target.endpoint().getScheme())) {
            final NioHttpClient nio = client.nio();
            final NioHttpClient.Call call = nio.prepare(target.endpoint(), headers(), RequestBody.of(spec, run, target),
                    target.requestTimeout().toMillis(), target.stallTimeout().toMillis(), this);
            return () -> abort = nio.send(call);
        }
        return () -> start(client.http());
    }

    /** Sends the request through Jetty (any scheme); returns at once. */
    public void start(HttpClient http) {
        abort = JettyExchange.post(http, target, headers(), RequestBody.of(spec, run, target), this);
    }

    private Map<String, String> headers() {
        final Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Accept", "text/event-stream");
        headers.put("X-Request-Id", spec.requestId());
        headers.putAll(target.headers());
        return headers;
    }

    /** Ends a request still running when the run stops: status ABANDONED. */
    public void abandon() {
        abort.accept(new Abandoned());
    }

    @Override
    public void sent() {
        actualSendUs = clock.nowMicros();
    }

    /** The request's first byte went to the socket at {@code nanos} ({@link System#nanoTime()}), reported later. */
    public void sentAt(long nanos) {
        actualSendUs = clock.micros(nanos);
    }

    /** The failure that ends an exchange whose client went away, or that is cut short when the run ends: status ABANDONED. */
    public static Exception abandonment() {
        return new Abandoned();
    }

    @Override
    public void resent(String reason) {
        resendReason = reason;
    }

    /** What was asked. */
    public RequestSpec spec() {
        return spec;
    }

    /**
     * The answer text streamed so far (reasoning left out): once the request is done, the answer a
     * session's next turn carries in its history. Read it from the callback that gets the request event.
     */
    public String answerText() {
        return answer.toString();
    }

    /** The engine's build as the stream's {@code system_fingerprint} gave it, or null. */
    public String fingerprint() {
        return chunk.fingerprint();
    }

    @Override
    public void status(int code) {
        httpStatus = code;
    }

    @Override
    public void body(ByteBuffer content, long readNanos) {
        readUs = clock.micros(readNanos);
        body(content);
    }

    private void body(ByteBuffer content) {
        if (httpStatus != 200) {
            while (content.hasRemaining() && errorBody.length() < MAX_ERROR_BODY) {
                errorBody.append((char) (content.get() & 0xff));
            }
            content.position(content.limit());
            return;
        }
        sse.feed(content);
    }

    @Override
    public void onEvent(byte[] data, int length) {
        if (done || protocolError != null) {
            return;
        }
        if (length == 6 && data[0] == '[' && new String(data, 0, 6, StandardCharsets.US_ASCII).equals("[DONE]")) {
            done = true;
            return;
        }
        try {
            chunk.parse(data, length);
        } catch (IOException | RuntimeException e) {
            fail("malformed stream event: " + e.getMessage());
            return;
        }
        if (chunk.error() != null) {
            serverError = "server error in stream" + (chunk.errorType() == null ? "" : " (" + chunk.errorType() + ")")
                    + ": " + chunk.error();
            fail(serverError);
            return;
        }
        if (chunk.timings() != null) {
            serverTimings = chunk.timings();
        }
        if (chunk.usageCompletionTokens() >= 0) {
            usageCompletion = chunk.usageCompletionTokens();
        }
        if (chunk.usageCachedTokens() >= 0) {
            usageCached = chunk.usageCachedTokens();
        }
        if (chunk.usagePromptTokens() >= 0) {
            usagePrompt = chunk.usagePromptTokens();
        }
        if (chunk.finishReason() != null) {
            finishSeen = true;
        }
        if (chunk.hasChoice()) {
            if (firstChoiceUs < 0) {
                firstChoiceUs = readUs;
            }
            lastChoiceUs = readUs;
        }
        final StreamChunk.Kind kind = chunk.kind();
        if (kind == StreamChunk.Kind.NONE) {
            return;
        }
        int tokens = 1;
        if (chunk.usageCompletionTokens() >= 0) {
            tokens = Math.max(1, chunk.usageCompletionTokens() - lastUsageTokens);
            lastUsageTokens = chunk.usageCompletionTokens();
        }
        if (firstChunkUs < 0) {
            firstChunkUs = readUs;
        }
        if (streamed != null) {
            streamed.append(chunk.reasoningText()).append(chunk.answerText());
        }
        if (kind == StreamChunk.Kind.ANSWER) {
            answer.append(chunk.answerText());
            if (firstAnswerUs < 0) {
                firstAnswerUs = readUs;
            }
        }
        lastChunkUs = readUs;
        sink.token(TokenRuns.chunk(run.contractId(), run.runId(), spec.scenarioId(), spec.requestId(), contentChunks++, kind.recorded(),
                tokens, readUs, spec.warmup()));
    }

    private void fail(String message) {
        protocolError = message;
        if (!observed) {
            abort.accept(new ProtocolError(message));
        }
    }

    @Override
    public void end(Throwable failure) {
        ended(failure, clock.nowMicros());
    }

    @Override
    public void end(Throwable failure, long endNanos) {
        ended(failure, clock.micros(endNanos));
    }

    private void ended(Throwable failure, long completionUs) {
        final RequestEvent.Builder e = RequestEvent.newBuilder()
                .setContractId(run.contractId()).setRunId(run.runId()).setScenarioId(spec.scenarioId())
                .setTargetId(run.targetId()).setGpuType(run.gpuType()).setGpuCount(run.gpuCount())
                .setOperation(target.chat() ? "chat" : "text_completion")
                .setMaxTokens(spec.maxTokens()).setMinTokens(spec.minTokens()).setIgnoreEos(run.decoding().ignoreEos())
                .setRequestId(spec.requestId()).setAttempt(1)
                .setIntendedSendTimeUs(Micros.toInstant(spec.intendedUs()))
                .setActualSendTimeUs(Micros.toInstant(actualSendUs >= 0 ? actualSendUs : completionUs))
                .setFirstChunkTimeUs(firstChunkUs >= 0 ? Micros.toInstant(firstChunkUs) : null)
                .setFirstAnswerTimeUs(firstAnswerUs >= 0 ? Micros.toInstant(firstAnswerUs) : null)
                .setLastChunkTimeUs(lastChunkUs >= 0 ? Micros.toInstant(lastChunkUs) : null)
                .setFirstChoiceTimeUs(firstChoiceUs >= 0 ? Micros.toInstant(firstChoiceUs) : null)
                .setLastChoiceTimeUs(lastChoiceUs >= 0 ? Micros.toInstant(lastChoiceUs) : null)
                .setCompletionTimeUs(Micros.toInstant(completionUs))
                .setPromptTokens(usagePrompt >= 0 ? usagePrompt : Failures.refusedPromptTokens(httpStatus, errorBody, spec.promptTokens()))
                // a session's later turn holds answers the generator did not size: its intended length is not known
                .setIntendedPromptTokens(observed || !spec.history().isEmpty() ? null : spec.promptTokens())
                .setSessionId(spec.sessionId()).setTurn(spec.turn())
                .setResends(resendReason == null ? null : 1).setResendReason(resendReason)
                .setCachedPromptTokens(usageCached >= 0 ? usageCached : null)
                .setServerTimings(serverTimings == null ? null : new ServerTimings((int) serverTimings[0],
                        serverTimings[1], (int) serverTimings[2], serverTimings[3],
                        serverTimings[4] < 0 ? null : (int) serverTimings[4], null))
                .setOutputTokens(usageCompletion >= 0 ? usageCompletion : counted())
                .setOutputTokensSource(usageCompletion >= 0 ? TokenCountSource.SERVER_USAGE
                        : counter != null && contentChunks > 0 ? TokenCountSource.TOKENIZER : TokenCountSource.CHUNK_COUNT)
                .setContentChunks(contentChunks)
                .setHttpStatus(httpStatus >= 0 ? httpStatus : null)
                .setWarmup(spec.warmup());
        classify(failure, e);
        if (e.getStatus() == RequestStatus.OK && judgeQuality) {
            final double score = Quality.score(run.qualityMetric(), answer.toString(), spec.expected());
            e.setQualityScore(score).setQualityPass(Quality.passes(score, run.qualityFloor()));
        } else if (e.getStatus() == RequestStatus.OK) {
            e.setQualityScore(null).setQualityPass(true);
        }
        final RequestEvent event = e.build();
        sink.request(event);
        onDone.accept(event);
    }

    /** Output tokens without a usage report: the tokenizer's count of the streamed text, else the content chunks. */
    private int counted() {
        return counter != null && contentChunks > 0 ? counter.count(streamed.toString(), false) : contentChunks;
    }

    private void classify(Throwable failure, RequestEvent.Builder e) {
        if (protocolError != null && !(failure instanceof Abandoned)) {
            // the response may have completed before the abort took effect: the bad event decides
            error(e, serverError != null ? "server_error" : "protocol", protocolError);
            return;
        }
        if (failure == null) {
            if (httpStatus != 200) {
                error(e, "http_" + httpStatus, "HTTP " + httpStatus + ": " + errorBody.toString().strip());
            } else if (!done && !finishSeen) {
                error(e, "protocol", "stream ended before [DONE] or a finish_reason"
                        + (sse.hasPartialEvent() ? " (inside an event)" : ""));
            } else if (contentChunks == 0) {
                error(e, "protocol", "the response carried no content");
            } else {
                e.setStatus(RequestStatus.OK).setErrorClass(null).setErrorMessage(null);
            }
            return;
        }
        if (failure instanceof Abandoned) {
            e.setStatus(RequestStatus.ABANDONED).setErrorClass("abandoned").setErrorMessage("still running when the run ended");
        } else if (failure instanceof ProtocolError) {
            error(e, "protocol", failure.getMessage());
        } else if (failure instanceof TimeoutException) {
            e.setStatus(RequestStatus.TIMEOUT).setErrorClass("timeout").setErrorMessage(Failures.timeoutReason(failure, httpStatus, target));
        } else if (httpStatus > 0 && httpStatus != 200) {
            error(e, "http_" + httpStatus, "HTTP " + httpStatus + ": " + errorBody.toString().strip());
        } else {
            // refused, reset, closed early, or anything else between here and the server
            error(e, "connection", Failures.describe(failure));
        }
    }

    /** The message is kept redacted: a server that echoes the key in its error body must not put it on a topic. */
    private void error(RequestEvent.Builder e, String errorClass, String message) {
        final String m = Redact.text(message == null ? "" : message, target.secrets());
        e.setStatus(RequestStatus.ERROR).setErrorClass(errorClass).setErrorMessage(m.length() > 500 ? m.substring(0, 500) : m);
    }

    private static final class Abandoned extends Exception {
        private static final long serialVersionUID = 1L;

        Abandoned() {
            super("abandoned", null, false, false);
        }
    }

    private static final class ProtocolError extends Exception {
        private static final long serialVersionUID = 1L;

        ProtocolError(String message) {
            super(message, null, false, false);
        }
    }
}
