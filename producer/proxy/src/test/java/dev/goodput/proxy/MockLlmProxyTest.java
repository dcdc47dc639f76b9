package dev.goodput.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.loop.MicroClock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Another implementation's traffic through the proxy: the npm {@code @dwmkerr/mock-llm} server (an
 * OpenAI-compatible echo server) behind it. {@code .ci/run} installs it into {@code target/mock-llm};
 * elsewhere the test skips without it, but not under CI.
 */
class MockLlmProxyTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final Path MAIN = Path.of(System.getenv().getOrDefault("GOODPUT_MOCK_LLM",
            HttpFixtures.projectFile("target/mock-llm/node_modules/@dwmkerr/mock-llm/dist/main.js").toString()));

    /** Starts mock-llm on a port that was free a moment ago; another taker in between fails the start, and the next port is tried. */
    private static Process start(Path dir) throws Exception {
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            final int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            final ProcessBuilder pb = new ProcessBuilder("node", MAIN.toAbsolutePath().toString()).directory(dir.toFile())
                    .redirectErrorStream(true);
            pb.environment().put("PORT", Integer.toString(port));
            pb.environment().put("HOST", "127.0.0.1");
            final Process p = pb.start();
            final BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null) {
                if (line.contains("server running on")) {
                    final Thread drain = new Thread(() -> {
                        try {
                            while (out.readLine() != null) {
                                // keep the pipe from filling
                            }
                        } catch (IOException ignored) {
                            // the process ended
                        }
                    }, "mock-llm-output");
                    drain.setDaemon(true);
                    drain.start();
                    PORTS.put(p, port);
                    return p;
                }
            }
            p.waitFor(5, TimeUnit.SECONDS);
            last = new IOException("mock-llm did not start on port " + port);
        }
        throw last;
    }

    private static final Map<Process, Integer> PORTS = new java.util.concurrent.ConcurrentHashMap<>();

    @Test
    void mockLlmsAnswersComeThroughWholeAndArePublishedAsItsChunks() throws Exception {
        final boolean ci = "true".equals(System.getenv("CI"));
        if (!Files.isRegularFile(MAIN)) {
            Assumptions.assumeTrue(ci, "mock-llm is not installed (.ci/run installs it into target/mock-llm)");
            throw new AssertionError("CI must run this test: mock-llm is not at " + MAIN.toAbsolutePath());
        }
        final Path dir = Files.createTempDirectory("mock-llm");
        final Process mock = start(dir);
        final String upstream = "http://127.0.0.1:" + PORTS.get(mock);
        final CollectingSink sink = new CollectingSink();
        try (StreamingClient jetty = new StreamingClient(8);
             ProxyServer proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), URI.create(upstream),
                     jetty.http(), HttpFixtures.RUN, "observed", new Target(upstream + "/v1", true, "m", null, Map.of(), "mock-llm",
                     Duration.ofSeconds(30), Duration.ofSeconds(10), false), sink, MicroClock.system())) {
            final HttpClient client = HttpClient.newHttpClient();
            final String message = "hello through the proxy, a message long enough for mock-llm to send it in several chunks";
            final String url = "http://127.0.0.1:" + proxy.address().getPort() + "/v1/chat/completions";
            final HttpResponse<String> streamed = client.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":"
                            + JSON.writeValueAsString(message) + "}]}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(streamed.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
            // the echo, whole, from the stream the client got
            final StringBuilder echoed = new StringBuilder();
            int contentEvents = 0;
            for (String line : streamed.body().split("\n")) {
                if (line.startsWith("data: {")) {
                    final JsonNode delta = JSON.readTree(line.substring(6)).path("choices").path(0).path("delta");
                    if (delta.path("content").isTextual() && !delta.path("content").asText().isEmpty()) {
                        echoed.append(delta.path("content").asText());
                        contentEvents++;
                    }
                }
            }
            assertThat(echoed.toString()).isEqualTo(message);
            assertThat(streamed.body()).endsWith("data: [DONE]\n\n");

            final HttpResponse<String> whole = client.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(JSON.readTree(whole.body()).path("choices").path(0).path("message").path("content").asText()).isEqualTo("hi");

            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (sink.requests.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(sink.requests).hasSize(2);
            final RequestEvent s = sink.requests.get(0);
            assertThat(s.getStatus()).isEqualTo(RequestStatus.OK);
            assertThat(s.getContentChunks()).as("one chunk per content event the client got").isEqualTo(contentEvents).isGreaterThan(1);
            // mock-llm reports no usage: tokens are counted chunks, and say so
            assertThat(s.getOutputTokensSource()).isEqualTo(TokenCountSource.CHUNK_COUNT);
            assertThat(sink.tokens.stream().filter(t -> t.getRequestId().equals(s.getRequestId())).map(t -> t.getKind()).distinct().toList())
                    .containsExactly(ChunkKind.ANSWER);
            final RequestEvent w = sink.requests.get(1);
            assertThat(w.getStatus()).isEqualTo(RequestStatus.OK);
            assertThat(w.getContentChunks()).isEqualTo(1);
        } finally {
            mock.destroy();
            mock.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
