package dev.goodput.spans;

import java.util.Locale;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.ServerTimings;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.capture.RunIdentity;
import dev.goodput.definitions.Histograms;
import dev.goodput.definitions.Micros;
import dev.goodput.records.DoorChecks;

/**
 * A GenAI request span as a request event, observed server-side. Two shapes are read:
 * <ul>
 * <li>vLLM's {@code llm_request} span ({@code --otlp-traces-endpoint}; SGLang uses the same names):
 *     {@code gen_ai.latency.time_to_first_token}, {@code .e2e}, {@code .time_in_queue},
 *     {@code .time_in_model_prefill}, {@code .time_in_model_decode} (seconds from the request's
 *     arrival), {@code gen_ai.usage.prompt_tokens}, {@code .completion_tokens}, {@code gen_ai.request.id};</li>
 * <li>the OpenTelemetry GenAI semantic conventions' inference span: {@code gen_ai.operation.name},
 *     {@code gen_ai.response.time_to_first_chunk} (seconds), {@code gen_ai.usage.input_tokens},
 *     {@code .output_tokens}, {@code gen_ai.response.id}, {@code error.type}; its end-to-end time
 *     is the span's duration.</li>
 * </ul>
 * The span's start stands for the intended send (there is no client schedule to measure from), the
 * first chunk is start + TTFT and the last is start + E2E; no per-chunk time is known, so the event
 * has no content chunks and ITL is not measured. A span without what a verdict needs (its TTFT, or
 * its token usage) is refused with the reason, never guessed. Quality is not judged: a span carries
 * no text (the proxy's rule for traffic without expected answers).
 */
public final class GenAiSpans {

    /** What became of one span. */
    public sealed interface Mapped permits Accepted, Refused, NotGenAi {
    }

    /** A request event. */
    public record Accepted(RequestEvent event) implements Mapped {
    }

    /** A GenAI span that cannot be judged: the DLQ reason and its message. */
    public record Refused(String reason, String message) implements Mapped {
    }

    /** Not a GenAI request span (an HTTP or a tool span of the same trace): left alone, counted. */
    public record NotGenAi() implements Mapped {
    }

    static final String VLLM_TTFT = "gen_ai.latency.time_to_first_token";
    static final String VLLM_E2E = "gen_ai.latency.e2e";
    static final String VLLM_QUEUE = "gen_ai.latency.time_in_queue";
    static final String VLLM_PREFILL = "gen_ai.latency.time_in_model_prefill";
    static final String VLLM_DECODE = "gen_ai.latency.time_in_model_decode";
    static final String VLLM_PROMPT = "gen_ai.usage.prompt_tokens";
    static final String VLLM_COMPLETION = "gen_ai.usage.completion_tokens";
    static final String VLLM_ID = "gen_ai.request.id";
    static final String SEMCONV_OPERATION = "gen_ai.operation.name";
    static final String SEMCONV_TTFC = "gen_ai.response.time_to_first_chunk";
    static final String SEMCONV_INPUT = "gen_ai.usage.input_tokens";
    static final String SEMCONV_OUTPUT = "gen_ai.usage.output_tokens";
    static final String SEMCONV_ID = "gen_ai.response.id";
    static final String MAX_TOKENS = "gen_ai.request.max_tokens";
    static final String ERROR_TYPE = "error.type";
    static final String SERVICE_NAME = "service.name";

    private GenAiSpans() {
    }

    /**
     * A mapped span judged at the door by the function that judges every request event
     * ({@link DoorChecks#request}), with its receipt time as the log time its record will get: a span
     * dated ahead of it, ended before it started, or longer than any latency here can hold is refused
     * here with the streams-app's reason, not accepted to be refused downstream.
     */
    public static Mapped judged(Mapped m, long receivedMs) {
        if (m instanceof Accepted a) {
            final DoorChecks.Problem p = DoorChecks.request(a.event(), receivedMs, DoorChecks.NO_CAP);
            if (p != null) {
                return new Refused(p.reason(), p.message());
            }
        }
        return m;
    }

    /** The span as a request event of {@code run} under {@code scenario}, refused with a reason, or not a GenAI span. */
    public static Mapped map(SpanView s, RunIdentity run, String scenario) {
        if (!s.hasPrefix("gen_ai.latency.") && !s.hasPrefix("gen_ai.usage.") && s.string(SEMCONV_OPERATION) == null) {
            return new NotGenAi();
        }
        final long startUs = Math.floorDiv(s.startNs(), 1_000L);
        final long endUs = Math.floorDiv(s.endNs(), 1_000L);
        if (s.startNs() <= 0 || endUs < startUs) {
            return new Refused("span_times_impossible", "span starts at " + s.startNs() + " ns and ends at " + s.endNs() + " ns");
        }
        final Long input = first(s.whole(VLLM_PROMPT), s.whole(SEMCONV_INPUT));
        final Long output = first(s.whole(VLLM_COMPLETION), s.whole(SEMCONV_OUTPUT));
        final RequestEvent.Builder e = RequestEvent.newBuilder()
                .setContractId(run.contractId()).setRunId(run.runId()).setScenarioId(scenario)
                .setTargetId(target(s, run)).setGpuType(run.gpuType()).setGpuCount(run.gpuCount())
                .setOperation(operation(s.string(SEMCONV_OPERATION)))
                .setRequestId(requestId(s)).setAttempt(1)
                .setIntendedSendTimeUs(Micros.toInstant(startUs)).setActualSendTimeUs(Micros.toInstant(startUs))
                .setContentChunks(0).setWarmup(false)
                .setMaxTokens(s.whole(MAX_TOKENS) == null ? null : (int) Math.min(Integer.MAX_VALUE, s.whole(MAX_TOKENS)))
                .setOutputTokensSource(TokenCountSource.SERVER_USAGE);
        if (s.error()) {
            final String type = s.string(ERROR_TYPE);
            return new Accepted(e.setStatus(RequestStatus.ERROR).setErrorClass(type != null ? type : "span_error")
                    .setErrorMessage(s.statusMessage() == null || s.statusMessage().isEmpty() ? null : s.statusMessage())
                    .setCompletionTimeUs(Micros.toInstant(endUs)).setPromptTokens(count(input)).setOutputTokens(count(output))
                    .build());
        }
        final Double ttftS = first(s.number(VLLM_TTFT), s.number(SEMCONV_TTFC));
        if (ttftS == null) {
            return new Refused("span_without_ttft", "no " + VLLM_TTFT + " nor " + SEMCONV_TTFC
                    + ": the time to first token cannot be judged (ITL and per-chunk times are never in spans either)");
        }
        if (input == null || output == null) {
            return new Refused("span_without_usage", "no token usage (" + VLLM_PROMPT + "/" + VLLM_COMPLETION + " or "
                    + SEMCONV_INPUT + "/" + SEMCONV_OUTPUT + "): throughput, TPOT and cost cannot be computed");
        }
        final Double e2eS = s.number(VLLM_E2E);
        final double limitS = Histograms.MAX_REQUEST_LATENCY_US / 1e6;
        if (ttftS > limitS || (e2eS != null && e2eS > limitS) || endUs - startUs > Histograms.MAX_REQUEST_LATENCY_US) {
            // beyond any latency the histograms hold, and a TTFT of 1e13 s would overflow the event's timestamps
            return new Refused("duration_out_of_range", String.format(Locale.ROOT, "time to first token %s s, end to end %s s,"
                    + " span %d us: more than the %d s any latency here can hold", ttftS, e2eS, endUs - startUs,
                    Histograms.MAX_REQUEST_LATENCY_US / 1_000_000));
        }
        final long ttftUs = seconds(ttftS);
        final long e2eUs = e2eS != null ? seconds(e2eS) : endUs - startUs;
        if (!Double.isFinite(ttftS) || ttftUs < 0 || e2eUs < ttftUs || input < 0 || output < 0
                || (e2eS != null && !Double.isFinite(e2eS))) {
            return new Refused("span_times_impossible", String.format(Locale.ROOT,
                    "time to first token %s s, end to end %s s, %d prompt and %d output tokens", ttftS, e2eS, input, output));
        }
        final long lastUs = startUs + e2eUs;
        return new Accepted(e.setStatus(RequestStatus.OK)
                .setFirstChunkTimeUs(Micros.toInstant(startUs + ttftUs)).setLastChunkTimeUs(Micros.toInstant(lastUs))
                // the span may be closed a moment before the e2e its attribute measured was taken
                .setCompletionTimeUs(Micros.toInstant(Math.max(endUs, lastUs)))
                .setPromptTokens(count(input)).setOutputTokens(count(output))
                .setServerTimings(timings(s, input, output))
                .setQualityScore(null).setQualityPass(true)
                .build());
    }

    /** The engine's account when the span carries its prefill and decode times (vLLM, SGLang). */
    private static ServerTimings timings(SpanView s, long input, long output) {
        final Double prefill = s.number(VLLM_PREFILL);
        final Double decode = s.number(VLLM_DECODE);
        if (prefill == null || decode == null) {
            return null;
        }
        final Double queue = s.number(VLLM_QUEUE);
        return new ServerTimings(count(input), prefill * 1_000, count(output), decode * 1_000, null,
                queue == null ? null : queue * 1_000);
    }

    private static String requestId(SpanView s) {
        final String id = first(s.string(VLLM_ID), s.string(SEMCONV_ID));
        return id != null && !id.isEmpty() ? id : "span-" + s.traceId() + "-" + s.spanId();
    }

    private static String target(SpanView s, RunIdentity run) {
        final Object service = s.resource().get(SERVICE_NAME);
        return service instanceof String name && !name.isEmpty() ? name : run.targetId();
    }

    /** The semantic conventions' operation (chat, text_completion, ...; the generator's names); null when the span does not say (vLLM). */
    private static String operation(String semconv) {
        return semconv == null || semconv.isEmpty() ? null : semconv;
    }

    private static long seconds(double s) {
        return Math.round(s * 1_000_000.0);
    }

    private static int count(Long n) {
        return n == null ? 0 : (int) Math.min(Integer.MAX_VALUE, n);
    }

    @SafeVarargs
    private static <T> T first(T... values) {
        for (T v : values) {
            if (v != null) {
                return v;
            }
        }
        return null;
    }
}
