package dev.goodput.spans;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.definitions.Micros;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;

/**
 * The receiver fed by the official OpenTelemetry SDK and its OTLP/HTTP exporter, as vLLM's and a
 * gateway's instrumentation would feed it.
 */
class OtlpTraceReceiverTest {

    static final class Collected implements OtlpTraceReceiver.Output {
        final List<RequestEvent> requests = new CopyOnWriteArrayList<>();
        final List<String> refusals = new CopyOnWriteArrayList<>();

        @Override
        public void request(RequestEvent event) {
            requests.add(event);
        }

        @Override
        public void refused(SpanView span, byte[] wire, String reason, String message) {
            assertThat(wire).as("the span's own bytes go to the DLQ").isNotEmpty();
            refusals.add(reason);
        }
    }

    @Test
    void theSdksSpansOfBothShapesBecomeRequestsAndTheRestIsCountedOrRefused() throws Exception {
        final Collected out = new Collected();
        try (OtlpTraceReceiver receiver = new OtlpTraceReceiver(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                GenAiSpansTest.RUN, "spans", out)) {
            final OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
                    .setEndpoint("http://127.0.0.1:" + receiver.address().getPort() + "/v1/traces").setCompression("gzip").build();
            final SdkTracerProvider provider = SdkTracerProvider.builder()
                    .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "vllm-b"))))
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
            final Tracer tracer = provider.get("goodput-test");
            final long start = 1_760_000_000_000_000_000L;
            // vLLM's llm_request span, as its tracing code sets it
            tracer.spanBuilder("llm_request").setStartTimestamp(start, TimeUnit.NANOSECONDS)
                    .setAttribute("gen_ai.request.id", "cmpl-1").setAttribute("gen_ai.usage.prompt_tokens", 300L)
                    .setAttribute("gen_ai.usage.completion_tokens", 40L).setAttribute("gen_ai.latency.time_in_queue", 0.05)
                    .setAttribute("gen_ai.latency.time_to_first_token", 0.2).setAttribute("gen_ai.latency.e2e", 1.4)
                    .setAttribute("gen_ai.latency.time_in_model_prefill", 0.15).setAttribute("gen_ai.latency.time_in_model_decode", 1.2)
                    .startSpan().end(start + 1_400_000_000L, TimeUnit.NANOSECONDS);
            // a gateway's semantic-conventions inference span
            tracer.spanBuilder("chat m").setStartTimestamp(start, TimeUnit.NANOSECONDS).setAttribute("gen_ai.operation.name", "chat")
                    .setAttribute("gen_ai.response.id", "chatcmpl-2").setAttribute("gen_ai.response.time_to_first_chunk", 0.5)
                    .setAttribute("gen_ai.usage.input_tokens", 12L).setAttribute("gen_ai.usage.output_tokens", 9L)
                    .startSpan().end(start + 2_000_000_000L, TimeUnit.NANOSECONDS);
            // a failed call
            final Span failed = tracer.spanBuilder("chat m").setStartTimestamp(start, TimeUnit.NANOSECONDS)
                    .setAttribute("gen_ai.operation.name", "chat").setAttribute("error.type", "rate_limited").startSpan();
            failed.setStatus(StatusCode.ERROR, "429 from upstream");
            failed.end(start + 10_000_000L, TimeUnit.NANOSECONDS);
            // a GenAI span without a time to first token: refused, not guessed
            tracer.spanBuilder("chat m").setStartTimestamp(start, TimeUnit.NANOSECONDS).setAttribute("gen_ai.operation.name", "chat")
                    .setAttribute("gen_ai.usage.input_tokens", 12L).setAttribute("gen_ai.usage.output_tokens", 9L)
                    .startSpan().end(start + 2_000_000_000L, TimeUnit.NANOSECONDS);
            // the HTTP server span around it: not a GenAI span
            tracer.spanBuilder("POST /v1/chat/completions").setAttribute("http.request.method", "POST").startSpan().end();
            final CompletableResultCode flushed = provider.forceFlush().join(30, TimeUnit.SECONDS);
            assertThat(flushed.isSuccess()).isTrue();
            provider.close();

            assertThat(receiver.spans()).isEqualTo(5);
            assertThat(receiver.accepted()).isEqualTo(3);
            assertThat(receiver.notGenAi()).isEqualTo(1);
            assertThat(receiver.refused()).containsEntry("span_without_ttft", 1L).hasSize(1);
            assertThat(out.refusals).containsExactly("span_without_ttft");
            final RequestEvent vllm = out.requests.stream().filter(e -> e.getRequestId().equals("cmpl-1")).findFirst().orElseThrow();
            assertThat(vllm.getTargetId()).isEqualTo("vllm-b");
            assertThat(Micros.of(vllm.getFirstChunkTimeUs()) - Micros.of(vllm.getIntendedSendTimeUs())).isEqualTo(200_000);
            assertThat(Micros.of(vllm.getLastChunkTimeUs()) - Micros.of(vllm.getIntendedSendTimeUs())).isEqualTo(1_400_000);
            assertThat(vllm.getServerTimings().getQueueMs()).isEqualTo(50.0);
            final RequestEvent semconv = out.requests.stream().filter(e -> e.getRequestId().equals("chatcmpl-2")).findFirst().orElseThrow();
            assertThat(Micros.of(semconv.getLastChunkTimeUs()) - Micros.of(semconv.getIntendedSendTimeUs())).isEqualTo(2_000_000);
            assertThat(out.requests).filteredOn(e -> e.getStatus() == RequestStatus.ERROR).singleElement()
                    .satisfies(e -> assertThat(e.getErrorClass()).isEqualTo("rate_limited"));
        }
    }

    @Test
    void otlpJsonAndGarbageAreRefusedWithWhatToDo() throws Exception {
        try (OtlpTraceReceiver receiver = new OtlpTraceReceiver(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                GenAiSpansTest.RUN, "spans", new Collected())) {
            final HttpClient http = HttpClient.newHttpClient();
            final URI url = URI.create("http://127.0.0.1:" + receiver.address().getPort() + "/v1/traces");
            final HttpResponse<String> json = http.send(HttpRequest.newBuilder(url).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"resourceSpans\":[]}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(json.statusCode()).isEqualTo(415);
            assertThat(json.body()).contains("http/protobuf");
            final HttpResponse<String> garbage = http.send(HttpRequest.newBuilder(url).header("Content-Type", "application/x-protobuf")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {(byte) 0xff, 1, 2})).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(garbage.statusCode()).isEqualTo(400);
            assertThat(receiver.badExports()).isEqualTo(2);
            assertThat(receiver.spans()).isZero();
        }
    }

    @Test
    void aPlainBodyMarkedGzipGetsAnAnswer() throws Exception {
        try (OtlpTraceReceiver receiver = new OtlpTraceReceiver(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                GenAiSpansTest.RUN, "spans", new Collected())) {
            final HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + receiver.address().getPort() + "/v1/traces"))
                    .header("Content-Type", "application/x-protobuf").header("Content-Encoding", "gzip")
                    .timeout(java.time.Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {10, 0})).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("Content-Encoding gzip");
            assertThat(receiver.badExports()).isEqualTo(1);
        }
    }

    @Test
    void slowSendersDoNotHoldAnotherSendersExport() throws Exception {
        try (OtlpTraceReceiver receiver = new OtlpTraceReceiver(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                GenAiSpansTest.RUN, "spans", new Collected())) {
            final int port = receiver.address().getPort();
            final List<java.net.Socket> slow = new java.util.ArrayList<>();
            try {
                // three senders that announce a body and send a byte of it, then nothing
                for (int i = 0; i < 3; i++) {
                    final java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), port);
                    s.getOutputStream().write(("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                            + "Content-Length: 1000\r\n\r\n\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    slow.add(s);
                }
                // an export beside them is answered (the bound is a deadline for a hang, not a timing assertion)
                final HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/v1/traces")).header("Content-Type", "application/x-protobuf")
                        .timeout(java.time.Duration.ofSeconds(60))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[0])).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
            } finally {
                for (java.net.Socket s : slow) {
                    s.close();
                }
            }
        }
    }
}
