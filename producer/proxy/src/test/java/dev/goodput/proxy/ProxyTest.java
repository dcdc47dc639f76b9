package dev.goodput.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenEvent;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.TimingPriority;
import dev.goodput.loop.MicroClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy hands every byte on unchanged and publishes what the generator would have for the same
 * exchange: the selector proxy here (plain-HTTP upstreams), the TLS one in {@link JettyProxyTest}.
 */
class ProxyTest {

    /** A stream with a role-only delta, reasoning, two answer chunks, a finish and usage: what classification must get right. */
    static final List<String> STREAM = List.of(
            "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n",
            "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\"}}]}\n\n",
            "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Paris\"}}]}\n\n",
            "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" is it\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":5,\"total_tokens\":14}}\n\n",
            "data: [DONE]\n\n");
    static final String COMPLETION = "{\"id\":\"y\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
            + "\"content\":\"Paris\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3,\"total_tokens\":12}}";

    private HttpServer upstream;
    private final AtomicBoolean upstreamSawCancel = new AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicReference<String> lastBody = new java.util.concurrent.atomic.AtomicReference<>();
    private final CountDownLatch slowStarted = new CountDownLatch(1);
    private StreamingClient jetty;
    private ProxyServer proxy;
    private CollectingSink sink;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/v1/chat/completions", ex -> {
            final String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            lastBody.set(body);
            if (body.contains("\"fail\"")) {
                final byte[] b = "{\"error\":{\"message\":\"overloaded\"}}".getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(500, b.length);
                ex.getResponseBody().write(b);
                ex.close();
                return;
            }
            if (!body.contains("\"stream\":true")) {
                final byte[] b = COMPLETION.getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.getResponseHeaders().set("X-Upstream", "sim");
                ex.sendResponseHeaders(200, b.length);
                ex.getResponseBody().write(b);
                ex.close();
                return;
            }
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.getResponseHeaders().set("X-Upstream", "sim");
            ex.sendResponseHeaders(200, 0);
            final OutputStream out = ex.getResponseBody();
            try {
                if (body.contains("\"slow\"")) {
                    // a long answer: a chunk every 20 ms until the client is gone
                    slowStarted.countDown();
                    for (int i = 0; i < 500; i++) {
                        out.write("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n".getBytes(StandardCharsets.UTF_8));
                        out.flush();
                        Thread.sleep(20);
                    }
                } else {
                    for (String e : STREAM) {
                        out.write(e.getBytes(StandardCharsets.UTF_8));
                        out.flush();
                    }
                }
                out.close();
            } catch (IOException e) {
                upstreamSawCancel.set(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        upstream.createContext("/v1/models", ex -> {
            final byte[] b = "{\"object\":\"list\",\"data\":[{\"id\":\"m\",\"object\":\"model\"}]}".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        upstream.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        upstream.start();
        jetty = new StreamingClient(16);
        sink = new CollectingSink();
        final Target target = new Target(upstreamUrl() + "/v1", true, "m", null, Map.of(), "upstream", Duration.ofSeconds(30),
                Duration.ofSeconds(10), false);
        proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), URI.create(upstreamUrl()), jetty.http(),
                HttpFixtures.RUN, "observed", target, sink, MicroClock.system(), TimingPriority.NORMAL, viaJetty());
    }

    /** Whether the proxy under test is the one for TLS upstreams (the JDK's server and Jetty's client). */
    boolean viaJetty() {
        return false;
    }

    @AfterEach
    void stop() {
        proxy.close();
        jetty.close();
        upstream.stop(0);
    }

    private String upstreamUrl() {
        return "http://127.0.0.1:" + upstream.getAddress().getPort();
    }

    private String proxyUrl() {
        return "http://127.0.0.1:" + proxy.address().getPort();
    }

    private HttpResponse<byte[]> post(String base, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions")).header("Content-Type", "application/json")
                .header("Authorization", "Bearer sk-client-key").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private static final String STREAMED = "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"capital of France\"}]}";

    @Test
    void aStreamedAnswerComesBackByteForByteAndIsPublishedAsTheGeneratorWouldPublishIt() throws Exception {
        final HttpResponse<byte[]> direct = post(upstreamUrl(), STREAMED);
        final HttpResponse<byte[]> proxied = post(proxyUrl(), STREAMED);
        assertThat(proxied.statusCode()).isEqualTo(200);
        assertThat(proxied.body()).isEqualTo(direct.body());
        assertThat(new String(proxied.body(), StandardCharsets.UTF_8)).isEqualTo(String.join("", STREAM));
        assertThat(proxied.headers().firstValue("X-Upstream")).hasValue("sim");
        assertThat(proxied.headers().firstValue("Content-Type")).hasValue("text/event-stream");

        // the same exchange sent by the generator itself
        final CollectingSink generated = new CollectingSink();
        final RequestEvent g = HttpFixtures.runOne(jetty, HttpFixtures.target(upstreamUrl() + "/v1"),
                HttpFixtures.spec("g", 16, MicroClock.system().nowMicros()), generated);
        final RequestEvent p = awaitRequest(1);
        assertThat(p.getStatus()).isEqualTo(RequestStatus.OK).isEqualTo(g.getStatus());
        assertThat(p.getContentChunks()).isEqualTo(g.getContentChunks()).isEqualTo(3);
        assertThat(p.getOutputTokens()).isEqualTo(g.getOutputTokens()).isEqualTo(5);
        assertThat(p.getPromptTokens()).isEqualTo(9);
        assertThat(p.getScenarioId()).isEqualTo("observed");
        assertThat(p.getQualityScore()).as("no expected answer for observed traffic").isNull();
        assertThat(p.getQualityPass()).isTrue();
        final List<ChunkKind> kinds = sink.tokens.stream().map(TokenEvent::getKind).toList();
        assertThat(kinds).containsExactlyElementsOf(generated.tokens.stream().map(TokenEvent::getKind).toList())
                .containsExactly(ChunkKind.REASONING, ChunkKind.ANSWER, ChunkKind.ANSWER);
        // timed from its arrival at the proxy, in order
        assertThat(p.getIntendedSendTimeUs()).isBeforeOrEqualTo(p.getActualSendTimeUs());
        assertThat(p.getActualSendTimeUs()).isBeforeOrEqualTo(p.getFirstChunkTimeUs());
        // chunks that come in one read share its time
        assertThat(p.getFirstChunkTimeUs()).isBeforeOrEqualTo(p.getFirstAnswerTimeUs());
        assertThat(proxy.observed()).isEqualTo(1);
    }

    /** A session a client names in a header: its calls are its turns, numbered as they arrive; a call without one is in none. */
    @Test
    void callsOfASessionTheClientNamesAreItsTurns() throws Exception {
        for (String session : new String[] {"conv-1", "conv-2", "conv-1", null, "bad id"}) {
            final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(proxyUrl() + "/v1/chat/completions"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(STREAMED));
            if (session != null && !session.contains(" ")) {
                b.header("X-Session-Id", session);
            }
            assertThat(client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray()).statusCode()).isEqualTo(200);
        }
        awaitRequest(5);
        final List<String> seen = sink.requests.stream().sorted(java.util.Comparator.comparing(RequestEvent::getIntendedSendTimeUs))
                .map(e -> e.getSessionId() + "#" + e.getTurn()).toList();
        assertThat(seen).containsExactly("conv-1#1", "conv-2#1", "conv-1#2", "null#null", "null#null");
    }

    @Test
    void aWholeAnswerComesBackUnchangedAndCountsAsOneChunkAtItsLastByte() throws Exception {
        final String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"capital of France\"}]}";
        final HttpResponse<byte[]> proxied = post(proxyUrl(), body);
        assertThat(new String(proxied.body(), StandardCharsets.UTF_8)).isEqualTo(COMPLETION);
        assertThat(proxied.headers().firstValue("Content-Length")).hasValue(String.valueOf(COMPLETION.length()));
        final RequestEvent p = awaitRequest(1);
        assertThat(p.getStatus()).isEqualTo(RequestStatus.OK);
        assertThat(p.getContentChunks()).isEqualTo(1);
        assertThat(p.getOutputTokens()).isEqualTo(3);
        assertThat(p.getFirstChunkTimeUs()).isEqualTo(p.getLastChunkTimeUs());
    }

    @Test
    void anUpstreamErrorKeepsItsStatusBodyAndClass() throws Exception {
        final HttpResponse<byte[]> proxied = post(proxyUrl(), "{\"model\":\"m\",\"stream\":true,\"user\":\"fail\",\"messages\":[]}");
        assertThat(proxied.statusCode()).isEqualTo(500);
        assertThat(new String(proxied.body(), StandardCharsets.UTF_8)).isEqualTo("{\"error\":{\"message\":\"overloaded\"}}");
        final RequestEvent p = awaitRequest(1);
        assertThat(p.getStatus()).isEqualTo(RequestStatus.ERROR);
        assertThat(p.getErrorClass()).isEqualTo("http_500");
        assertThat(p.getErrorMessage()).contains("overloaded");
    }

    @Test
    void otherPathsPassThroughUntouchedAndUnobserved() throws Exception {
        final HttpResponse<byte[]> direct = client.send(HttpRequest.newBuilder(URI.create(upstreamUrl() + "/v1/models")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        final HttpResponse<byte[]> proxied = client.send(HttpRequest.newBuilder(URI.create(proxyUrl() + "/v1/models")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(proxied.body()).isEqualTo(direct.body());
        assertThat(proxy.passedThrough()).isEqualTo(1);
        assertThat(proxy.observed()).isZero();
        assertThat(sink.requests).isEmpty();
    }

    @Test
    void aClientThatLeavesMidStreamIsAbandonedAndTheUpstreamRequestIsCancelled() throws Exception {
        final HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(URI.create(proxyUrl() + "/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"stream\":true,\"user\":\"slow\",\"messages\":[]}")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
        final InputStream in = r.body();
        assertThat(in.read(new byte[64])).isPositive();
        in.close();
        final RequestEvent p = awaitRequest(1);
        assertThat(p.getStatus()).isEqualTo(RequestStatus.ABANDONED);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!upstreamSawCancel.get() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(upstreamSawCancel).as("the upstream's write failed: the proxy closed its connection").isTrue();
    }

    private RequestEvent awaitRequest(int n) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (sink.requests.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(sink.requests).hasSize(n);
        return sink.requests.get(n - 1);
    }

    @Test
    void theRunIdRollsOverWithTheCallsArrival() {
        proxy.rollEvery(Duration.ofSeconds(10));
        final long t0 = MicroClock.system().nowMicros();
        final String first = proxy.runAt(t0).runId();
        assertThat(first).isEqualTo("run-t-0001");
        assertThat(proxy.runAt(t0 + 10_000_000).runId()).isEqualTo("run-t-0002");
        assertThat(proxy.runAt(t0 + 35_000_000).runId()).isEqualTo("run-t-0004");
        proxy.rollEvery(Duration.ZERO);
        assertThat(proxy.runAt(t0 + 35_000_000).runId()).isEqualTo("run-t");
    }

    @Test
    void askingForUsageOnTheClientsBehalfKeepsTheUsageEventFromItAndCountsTokensFromTheServer() throws Exception {
        proxy.askUsage(true);
        final HttpResponse<byte[]> proxied = post(proxyUrl(), STREAMED);
        assertThat(lastBody.get()).contains("\"include_usage\":true");
        final String expected = String.join("", STREAM.stream().filter(e -> !e.contains("\"usage\"")).toList());
        assertThat(new String(proxied.body(), StandardCharsets.UTF_8)).isEqualTo(expected);
        final RequestEvent p = awaitRequest(1);
        assertThat(p.getOutputTokens()).isEqualTo(5);
        assertThat(p.getOutputTokensSource()).isEqualTo(dev.goodput.avro.TokenCountSource.SERVER_USAGE);
        // a client that asked for usage itself gets it
        final HttpResponse<byte[]> asked = post(proxyUrl(),
                STREAMED.replace("\"stream\":true", "\"stream\":true,\"stream_options\":{\"include_usage\":true}"));
        assertThat(new String(asked.body(), StandardCharsets.UTF_8)).isEqualTo(String.join("", STREAM));
        awaitRequest(2);
    }
}
