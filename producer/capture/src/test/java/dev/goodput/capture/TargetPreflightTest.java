package dev.goodput.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.goodput.config.Preflight;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The preflight against real HTTP servers: one that refuses connections, one that answers 404, one
 * that needs Azure's {@code ?api-version=} and {@code api-key} header, one that serves other models.
 */
class TargetPreflightTest {

    private static final String STREAM = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Paris\"}}]}\n\n"
            + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

    private StreamingClient client;
    private HttpServer server;
    private final List<String> seen = new CopyOnWriteArrayList<>();

    @BeforeEach
    void client() {
        client = new StreamingClient(4);
    }

    @AfterEach
    void close() {
        client.close();
        if (server != null) {
            server.stop(0);
        }
    }

    private static Target target(String baseUrl, Map<String, String> headers) {
        return new Target(baseUrl, true, "m", null, headers, "t", Duration.ofSeconds(10), Duration.ofSeconds(5), false);
    }

    private String serve(Handler models, Handler completions) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI() + " api-key=" + ex.getRequestHeaders().getFirst("api-key"));
            ex.getRequestBody().readAllBytes();
            if (ex.getRequestURI().getPath().endsWith("/models")) {
                models.handle(ex);
            } else {
                completions.handle(ex);
            }
        });
        server.start();
        return HttpFixtures.baseUrl(server);
    }

    interface Handler {
        void handle(HttpExchange ex) throws IOException;
    }

    private static Handler answer(int status, String contentType, String body) {
        return ex -> {
            final byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", contentType);
            ex.sendResponseHeaders(status, b.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        };
    }

    @Test
    void aRefusedConnectionStopsAtOnceSayingNothingListens() throws IOException {
        // a port bound by a socket that does not listen: connecting to it is refused, whatever else runs here
        try (Socket holder = new Socket()) {
            holder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final Target t = target("http://127.0.0.1:" + holder.getLocalPort() + "/v1", Map.of());
            assertThatThrownBy(() -> TargetPreflight.check(client, t, HttpFixtures.CORPUS, HttpFixtures.RUN))
                    .isInstanceOf(Preflight.Unreachable.class)
                    .hasMessageContaining("refused the connection")
                    .hasMessageContaining("127.0.0.1:" + holder.getLocalPort());
        }
    }

    @Test
    void a404CarriesTheServersStatusAndMessage() throws IOException {
        final String base = serve(answer(404, "application/json", "{\"detail\":\"Not Found\"}"),
                answer(404, "application/json", "{\"error\":{\"message\":\"The model `m` does not exist.\"}}"));
        final Target t = target(base, Map.of());
        assertThatThrownBy(() -> TargetPreflight.check(client, t, HttpFixtures.CORPUS, HttpFixtures.RUN))
                .isInstanceOf(Preflight.Unreachable.class)
                .hasMessageContaining("http_404")
                .hasMessageContaining("HTTP 404")
                .hasMessageContaining("The model `m` does not exist.");
    }

    @Test
    void anAzureStyleTargetGetsItsQueryAndKeyHeaderOnEveryRequest() throws IOException {
        final Handler needsVersionAndKey = ex -> {
            if (!"api-version=2024-10-21".equals(ex.getRequestURI().getQuery())
                    || !"k-123".equals(ex.getRequestHeaders().getFirst("api-key"))) {
                answer(401, "application/json", "{\"error\":{\"message\":\"missing api-version or key\"}}").handle(ex);
                return;
            }
            answer(200, "text/event-stream", STREAM).handle(ex);
        };
        final String base = serve(answer(404, "application/json", "{}"), needsVersionAndKey);
        final String line = TargetPreflight.check(client, target(base + "?api-version=2024-10-21",
                Map.of("api-key", "k-123")), HttpFixtures.CORPUS, HttpFixtures.RUN);
        assertThat(line).contains("one test request answered 1 chunk(s)").contains("no model list (GET /models answered HTTP 404)");
        assertThat(seen).containsExactly(
                "GET /v1/models?api-version=2024-10-21 api-key=k-123",
                "POST /v1/chat/completions?api-version=2024-10-21 api-key=k-123");
        // and the same target without its key is refused with the server's message
        assertThatThrownBy(() -> TargetPreflight.check(client, target(base + "?api-version=2024-10-21", Map.of()),
                HttpFixtures.CORPUS, HttpFixtures.RUN))
                .hasMessageContaining("http_401").hasMessageContaining("missing api-version or key");
    }

    @Test
    void aModelListWithoutTheModelNamesWhatIsServed() throws IOException {
        final String base = serve(answer(200, "application/json",
                "{\"object\":\"list\",\"data\":[{\"id\":\"llama-3-8b\",\"object\":\"model\"},{\"id\":\"qwen\"}]}"),
                answer(200, "text/event-stream", STREAM));
        assertThatThrownBy(() -> TargetPreflight.check(client, target(base, Map.of()), HttpFixtures.CORPUS, HttpFixtures.RUN))
                .hasMessageContaining("does not serve model 'm'").hasMessageContaining("llama-3-8b, qwen");
        assertThat(seen).hasSize(1);
    }

    @Test
    void aListedModelAndAnsweredRequestPass() throws IOException {
        final String base = serve(answer(200, "application/json", "{\"data\":[{\"id\":\"m\"}]}"),
                answer(200, "text/event-stream", STREAM));
        assertThat(TargetPreflight.check(client, target(base, Map.of()), HttpFixtures.CORPUS, HttpFixtures.RUN))
                .startsWith("preflight: model 'm' listed; one test request answered 1 chunk(s)");
    }

    @Test
    void refusedCredentialsOnTheModelListStopBeforeAnyCompletion() throws IOException {
        final String base = serve(answer(401, "application/json", "{\"error\":\"invalid key sk-abcdefghijklmnop\"}"),
                answer(200, "text/event-stream", STREAM));
        assertThatThrownBy(() -> TargetPreflight.check(client, target(base, Map.of("Authorization", "Bearer sk-abcdefghijklmnop")),
                HttpFixtures.CORPUS, HttpFixtures.RUN))
                .hasMessageContaining("refused the credentials").hasMessageContaining("HTTP 401")
                .hasMessageNotContaining("sk-abcdefghijklmnop");
        assertThat(seen).hasSize(1);
    }
}
