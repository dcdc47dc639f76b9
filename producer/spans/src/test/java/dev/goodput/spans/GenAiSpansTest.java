package dev.goodput.spans;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.capture.RunIdentity;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Micros;
import org.junit.jupiter.api.Test;

class GenAiSpansTest {
    static final RunIdentity RUN = new RunIdentity("c".repeat(64), "run-s", "spans", "H100", 2,
            new Contract.Decoding(0.0, 1.0, null, 7L, false), "contains", 1.0);
    static final long START_NS = 1_700_000_000_123_456_789L;
    static final long START_US = 1_700_000_000_123_456L;

    static SpanView span(long durationNs, boolean error, Map<String, Object> attrs) {
        return new SpanView("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", "llm_request", START_NS, START_NS + durationNs,
                error, error ? "engine failed" : "", attrs, Map.of("service.name", "vllm-a"));
    }

    static Map<String, Object> vllm() {
        final Map<String, Object> a = new HashMap<>();
        a.put("gen_ai.latency.time_to_first_token", 0.25);
        a.put("gen_ai.latency.e2e", 1.75);
        a.put("gen_ai.latency.time_in_queue", 0.1);
        a.put("gen_ai.latency.time_in_model_prefill", 0.12);
        a.put("gen_ai.latency.time_in_model_decode", 1.5);
        a.put("gen_ai.usage.prompt_tokens", 512L);
        a.put("gen_ai.usage.completion_tokens", 61L);
        a.put("gen_ai.request.id", "cmpl-42");
        a.put("gen_ai.request.max_tokens", 128L);
        return a;
    }

    static Map<String, Object> semconv() {
        final Map<String, Object> a = new HashMap<>();
        a.put("gen_ai.operation.name", "chat");
        a.put("gen_ai.response.time_to_first_chunk", 0.3);
        a.put("gen_ai.usage.input_tokens", 100L);
        a.put("gen_ai.usage.output_tokens", 21L);
        a.put("gen_ai.response.id", "chatcmpl-7");
        return a;
    }

    static RequestEvent accepted(GenAiSpans.Mapped m) {
        assertThat(m).isInstanceOf(GenAiSpans.Accepted.class);
        return ((GenAiSpans.Accepted) m).event();
    }

    @Test
    void vllmsSpanGivesTheServersTimesFromArrivalAndItsAccount() {
        final RequestEvent e = accepted(GenAiSpans.map(span(1_800_000_000L, false, vllm()), RUN, "spans"));
        assertThat(e.getStatus()).isEqualTo(RequestStatus.OK);
        assertThat(e.getRequestId()).isEqualTo("cmpl-42");
        assertThat(e.getTargetId()).as("the resource's service.name").isEqualTo("vllm-a");
        assertThat(Micros.of(e.getIntendedSendTimeUs())).isEqualTo(START_US);
        assertThat(Micros.of(e.getActualSendTimeUs())).isEqualTo(START_US);
        assertThat(Micros.of(e.getFirstChunkTimeUs()) - START_US).isEqualTo(250_000);
        assertThat(Micros.of(e.getLastChunkTimeUs()) - START_US).as("e2e from the attribute, not the span's end").isEqualTo(1_750_000);
        assertThat(Micros.of(e.getCompletionTimeUs()) - START_US).as("the span's end").isEqualTo(1_800_000);
        assertThat(e.getPromptTokens()).isEqualTo(512);
        assertThat(e.getOutputTokens()).isEqualTo(61);
        assertThat(e.getOutputTokensSource()).isEqualTo(TokenCountSource.SERVER_USAGE);
        assertThat(e.getContentChunks()).as("no per-chunk data").isZero();
        assertThat(e.getOperation()).as("vLLM's span does not say").isNull();
        assertThat(e.getMaxTokens()).isEqualTo(128);
        assertThat(e.getQualityPass()).as("no text: unjudged").isTrue();
        assertThat(e.getQualityScore()).isNull();
        assertThat(e.getServerTimings().getPromptMs()).isEqualTo(120.0);
        assertThat(e.getServerTimings().getPredictedMs()).isEqualTo(1500.0);
        assertThat(e.getServerTimings().getPredictedN()).isEqualTo(61);
        assertThat(e.getServerTimings().getQueueMs()).isEqualTo(100.0);
        assertThat(e.getContractId()).isEqualTo(RUN.contractId());
        assertThat(e.getRunId()).isEqualTo("run-s");
        assertThat(e.getScenarioId()).isEqualTo("spans");
    }

    @Test
    void aSemconvSpansEndToEndIsItsDuration() {
        final RequestEvent e = accepted(GenAiSpans.map(span(900_000_000L, false, semconv()), RUN, "spans"));
        assertThat(e.getRequestId()).isEqualTo("chatcmpl-7");
        assertThat(e.getOperation()).isEqualTo("chat");
        assertThat(Micros.of(e.getFirstChunkTimeUs()) - START_US).isEqualTo(300_000);
        assertThat(Micros.of(e.getLastChunkTimeUs()) - START_US).isEqualTo(900_000);
        assertThat(Micros.of(e.getCompletionTimeUs()) - START_US).isEqualTo(900_000);
        assertThat(e.getPromptTokens()).isEqualTo(100);
        assertThat(e.getOutputTokens()).isEqualTo(21);
        assertThat(e.getServerTimings()).as("no prefill and decode times").isNull();
    }

    @Test
    void anE2eMeasuredAfterTheSpanClosedMovesTheCompletionNotTheTimes() {
        final Map<String, Object> a = vllm();
        final RequestEvent e = accepted(GenAiSpans.map(span(1_700_000_000L, false, a), RUN, "spans"));
        assertThat(Micros.of(e.getLastChunkTimeUs()) - START_US).isEqualTo(1_750_000);
        assertThat(Micros.of(e.getCompletionTimeUs())).isEqualTo(Micros.of(e.getLastChunkTimeUs()));
    }

    @Test
    void anErrorSpanIsAnErrorWithItsType() {
        final Map<String, Object> a = semconv();
        a.put("error.type", "timeout");
        final RequestEvent e = accepted(GenAiSpans.map(span(5_000_000L, true, a), RUN, "spans"));
        assertThat(e.getStatus()).isEqualTo(RequestStatus.ERROR);
        assertThat(e.getErrorClass()).isEqualTo("timeout");
        assertThat(e.getErrorMessage()).isEqualTo("engine failed");
        assertThat(e.getFirstChunkTimeUs()).isNull();
        final RequestEvent untyped = accepted(GenAiSpans.map(span(5_000_000L, true, vllm()), RUN, "spans"));
        assertThat(untyped.getErrorClass()).isEqualTo("span_error");
    }

    @Test
    void whatAVerdictNeedsIsNeverGuessed() {
        final Map<String, Object> noTtft = vllm();
        noTtft.remove("gen_ai.latency.time_to_first_token");
        final GenAiSpans.Refused r = (GenAiSpans.Refused) GenAiSpans.map(span(1_800_000_000L, false, noTtft), RUN, "spans");
        assertThat(r.reason()).isEqualTo("span_without_ttft");
        assertThat(r.message()).contains("gen_ai.latency.time_to_first_token").contains("gen_ai.response.time_to_first_chunk");
        final Map<String, Object> noUsage = semconv();
        noUsage.remove("gen_ai.usage.output_tokens");
        assertThat(((GenAiSpans.Refused) GenAiSpans.map(span(900_000_000L, false, noUsage), RUN, "spans")).reason())
                .isEqualTo("span_without_usage");
        final Map<String, Object> backwards = vllm();
        backwards.put("gen_ai.latency.e2e", 0.1);
        assertThat(((GenAiSpans.Refused) GenAiSpans.map(span(1_800_000_000L, false, backwards), RUN, "spans")).reason())
                .as("last token before the first").isEqualTo("span_times_impossible");
        final Map<String, Object> nan = semconv();
        nan.put("gen_ai.response.time_to_first_chunk", Double.NaN);
        assertThat(((GenAiSpans.Refused) GenAiSpans.map(span(900_000_000L, false, nan), RUN, "spans")).reason())
                .isEqualTo("span_times_impossible");
        final Map<String, Object> late = semconv();
        late.put("gen_ai.response.time_to_first_chunk", 2.0);
        assertThat(((GenAiSpans.Refused) GenAiSpans.map(span(900_000_000L, false, late), RUN, "spans")).reason())
                .as("first chunk after the span's end").isEqualTo("span_times_impossible");
    }

    @Test
    void otherSpansAreLeftAlone() {
        assertThat(GenAiSpans.map(span(1_000L, false, Map.of("http.request.method", "POST")), RUN, "spans"))
                .isInstanceOf(GenAiSpans.NotGenAi.class);
    }

    @Test
    void aSpanWithoutAnIdIsNamedByItsTraceAndSpan() {
        final Map<String, Object> a = semconv();
        a.remove("gen_ai.response.id");
        assertThat(accepted(GenAiSpans.map(span(900_000_000L, false, a), RUN, "spans")).getRequestId())
                .isEqualTo("span-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331");
    }

    @Test
    void aSpanIsJudgedAtTheDoorByTheFunctionThatJudgesEveryRequestEvent() {
        final long receivedMs = START_US / 1_000 + 2_000;
        // as sent: accepted
        assertThat(GenAiSpans.judged(GenAiSpans.map(span(1_800_000_000L, false, vllm()), RUN, "spans"), receivedMs))
                .isInstanceOf(GenAiSpans.Accepted.class);
        // dated a day after it was received: the sender's clock is fast
        final GenAiSpans.Mapped future = GenAiSpans.judged(GenAiSpans.map(span(1_800_000_000L, false, vllm()), RUN, "spans"),
                receivedMs - 86_400_000L);
        assertThat(future).isInstanceOfSatisfying(GenAiSpans.Refused.class, r -> assertThat(r.reason()).isEqualTo("from_the_future"));
        // a TTFT of 1e13 s would overflow the event's timestamps: refused before, with the door's reason
        final Map<String, Object> absurd = vllm();
        absurd.put("gen_ai.latency.time_to_first_token", 1e13);
        absurd.put("gen_ai.latency.e2e", 2e13);
        assertThat(GenAiSpans.map(span(1_800_000_000L, false, absurd), RUN, "spans"))
                .isInstanceOfSatisfying(GenAiSpans.Refused.class, r -> assertThat(r.reason()).isEqualTo("duration_out_of_range"));
    }
}
