package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.LlamaServer;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.loop.MicroClock;
import dev.goodput.proxy.ProxyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The passive proxy in front of a real engine: upstream llama.cpp's llama-server (2 slots of 2,048
 * tokens) serving a small Llama-architecture model with the real Llama-2 tokenizer. What the client
 * gets is the engine's answer; what the proxy records agrees with the engine's own account.
 */
class LlamaServerProxyIT {

    private static final int SLOTS = 2;
    private static final int CTX = 2048;
    private static LlamaServer server;

    @BeforeAll
    static void start() throws Exception {
        server = LlamaServer.start(SLOTS, CTX);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static Target target(boolean chat, Duration timeout, Duration stall) {
        return new Target(server.v1(), chat, LlamaServer.MODEL, null, Map.of(), "llama-server", timeout, stall, false);
    }

    private static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }

    /**
     * The passive proxy in front of the real engine: streamed and non-streamed, chat (usage in a
     * chunk of its own) and completions (usage on the finishing chunk). Each call's client gets the
     * engine's answer, and its request event agrees with the engine's own usage and timings.
     */
    @Test
    void theProxyObservesTheEngineStreamedAndNot() throws Exception {
        final CollectingSink sink = new CollectingSink();
        final Target t = target(true, seconds(120), seconds(30));
        try (StreamingClient jetty = new StreamingClient(4);
             ProxyServer proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), URI.create(server.base()),
                     jetty.http(), HttpFixtures.RUN, "observed", t, sink, MicroClock.system())) {
            final HttpClient http = HttpClient.newHttpClient();
            final String base = "http://127.0.0.1:" + proxy.address().getPort() + "/v1";
            final ObjectMapper json = new ObjectMapper();
            int calls = 0;
            for (boolean chat : new boolean[] {true, false}) {
                for (boolean stream : new boolean[] {true, false}) {
                    final ObjectNode body = json.createObjectNode().put("model", LlamaServer.MODEL).put("max_tokens", 12)
                            .put("temperature", 0).put("stream", stream);
                    if (chat) {
                        body.putArray("messages").addObject().put("role", "user").put("content", "What is the capital of France?");
                    } else {
                        body.put("prompt", "What is the capital of France?");
                    }
                    if (stream) {
                        body.putObject("stream_options").put("include_usage", true);
                    }
                    final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + (chat ? "/chat/completions"
                            : "/completions"))).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                    assertThat(r.body()).contains(stream ? "data: [DONE]" : "\"usage\"");
                    calls++;
                }
            }
            final int expected = calls;
            final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (sink.requests.size() < expected && System.nanoTime() < until) {
                Thread.sleep(20);
            }
        }
        assertThat(sink.requests).hasSize(4).allSatisfy(e -> {
            assertThat(e.getStatus()).as(e.getErrorMessage()).isEqualTo(RequestStatus.OK);
            assertThat(e.getOutputTokensSource()).isEqualTo(TokenCountSource.SERVER_USAGE);
            assertThat(e.getServerTimings()).isNotNull();
            assertThat(e.getOutputTokens()).isEqualTo(e.getServerTimings().getPredictedN()).isEqualTo(12);
        });
    }

    /**
     * An error inside a 200 stream, from the real engine: a logit_bias that makes the model emit half a
     * UTF-8 character (byte 0xC3, token 198) fails llama-server's chat parser after the stream began.
     * Through the proxy, the client gets the engine's stream as it came, and the call is recorded as a
     * server_error with the engine's message, not as a protocol fault.
     */
    @Test
    void anErrorInsideTheEnginesStreamIsAServerError() throws Exception {
        final CollectingSink sink = new CollectingSink();
        final Target t = target(true, seconds(120), seconds(30));
        try (StreamingClient jetty = new StreamingClient(4);
             ProxyServer proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), URI.create(server.base()),
                     jetty.http(), HttpFixtures.RUN, "observed", t, sink, MicroClock.system())) {
            final String body = "{\"model\":\"" + LlamaServer.MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                    + "\"max_tokens\":16,\"temperature\":0,\"stream\":true,\"logit_bias\":{\"198\":6,\"68\":6}}";
            final HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + proxy.address().getPort() + "/v1/chat/completions")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("data: {\"error\"");
            final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (sink.requests.isEmpty() && System.nanoTime() < until) {
                Thread.sleep(20);
            }
        }
        assertThat(sink.requests).hasSize(1);
        final RequestEvent e = sink.requests.get(0);
        assertThat(e.getStatus()).isEqualTo(RequestStatus.ERROR);
        assertThat(e.getErrorClass()).isEqualTo("server_error");
        assertThat(e.getHttpStatus()).isEqualTo(200);
        assertThat(e.getErrorMessage()).startsWith("server error in stream (server_error): ");
    }
}
