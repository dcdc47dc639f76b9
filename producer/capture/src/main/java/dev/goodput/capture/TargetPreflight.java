package dev.goodput.capture;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenEvent;
import dev.goodput.config.Preflight;
import dev.goodput.config.Redact;
import dev.goodput.contract.load.Corpus;
import dev.goodput.definitions.Micros;
import dev.goodput.loop.MicroClock;

/**
 * Before a run, what vLLM's {@code bench serve} does first: the model list ({@code GET /models},
 * where the server has one) must name the model, and one short request must succeed. A target that
 * is down, refuses the key, does not serve the model or answers with an error stops the run at once
 * with the server's own status and message, instead of a whole load matrix of failures.
 */
public final class TargetPreflight {

    /** Output tokens the test request asks for: enough to see a stream, few enough to be quick. */
    static final int TEST_MAX_TOKENS = 8;
    static final int TEST_PROMPT_TOKENS = 32;
    private static final Duration MODELS_TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private TargetPreflight() {
    }

    /**
     * Checks the target; returns a one-line account of what passed.
     *
     * @throws Preflight.Unreachable naming the endpoint, the server's status and its message
     */
    public static String check(StreamingClient client, Target target, Corpus corpus, RunIdentity identity) {
        final String models = models(target);
        final RequestEvent e = testRequest(client, target, corpus, identity);
        if (e.getStatus() != RequestStatus.OK) {
            throw new Preflight.Unreachable("the test request to " + Redact.url(target.endpoint().toString())
                    + " failed (" + e.getErrorClass() + "): " + e.getErrorMessage()
                    + hint(e.getErrorClass()) + " (--skip-preflight runs anyway)");
        }
        return String.format(Locale.ROOT, "preflight: %s; one test request answered %d chunk(s) in %.1f ms",
                models, e.getContentChunks(),
                (Micros.of(e.getCompletionTimeUs()) - Micros.of(e.getActualSendTimeUs())) / 1000.0);
    }

    private static String hint(String errorClass) {
        return switch (errorClass == null ? "" : errorClass) {
            case "http_401", "http_403" -> "; check the API key (--api-key-env, --api-key-file) and --header";
            case "http_404" -> "; check the --target base URL (it ends before /chat/completions, usually in /v1),"
                    + " --endpoint and --model";
            case "connection" -> "; is the server up at that address?";
            default -> "";
        };
    }

    /**
     * {@code GET {base}/models}: the model must be listed when the server answers the list; a
     * refused key or a refused connection fails here already. Servers without the endpoint pass.
     */
    static String models(Target target) {
        final URI uri = target.modelsUri();
        final HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(MODELS_TIMEOUT).GET();
        target.headers().forEach((k, v) -> {
            if (!restricted(k)) {
                b.header(k, v);
            }
        });
        final HttpClient http = HttpClient.newBuilder().connectTimeout(MODELS_TIMEOUT).build();
        final HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException e) {
            throw new Preflight.Unreachable("the target at " + Redact.url(target.endpoint().toString())
                    + " refused the connection: nothing listens there (check --target; --skip-preflight runs anyway)");
        } catch (IOException e) {
            throw new Preflight.Unreachable("the target at " + Redact.url(uri.toString()) + " did not answer: "
                    + Redact.text(String.valueOf(e.getMessage()), target.secrets())
                    + " (check --target; --skip-preflight runs anyway)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Preflight.Unreachable("interrupted during the preflight");
        }
        final String body = Redact.text(r.body() == null ? "" : r.body().strip(), target.secrets());
        if (r.statusCode() == 401 || r.statusCode() == 403) {
            throw new Preflight.Unreachable("the target refused the credentials: GET " + Redact.url(uri.toString())
                    + " answered HTTP " + r.statusCode() + ": " + clip(body)
                    + "; check the API key (--api-key-env, --api-key-file) and --header (--skip-preflight runs anyway)");
        }
        if (r.statusCode() != 200) {
            return "no model list (GET /models answered HTTP " + r.statusCode() + ")";
        }
        final List<String> ids = modelIds(body);
        if (ids == null) {
            return "a model list that is not OpenAI's shape";
        }
        if (!ids.contains(target.model())) {
            throw new Preflight.Unreachable("the target does not serve model '" + target.model() + "'; it serves "
                    + (ids.isEmpty() ? "none" : String.join(", ", ids))
                    + " (use --model, or the contract's model.name; --skip-preflight runs anyway)");
        }
        return "model '" + target.model() + "' listed";
    }

    /** The ids of an OpenAI model list ({@code {"data": [{"id": ...}]}}), or null for another shape. */
    static List<String> modelIds(String body) {
        try {
            final JsonNode data = JSON.readTree(body).path("data");
            if (!data.isArray()) {
                return null;
            }
            final List<String> ids = new ArrayList<>();
            data.forEach(m -> {
                if (m.hasNonNull("id")) {
                    ids.add(m.get("id").asText());
                }
            });
            return ids;
        } catch (IOException e) {
            return null;
        }
    }

    private static RequestEvent testRequest(StreamingClient client, Target target, Corpus corpus, RunIdentity identity) {
        final Corpus.Entry entry = corpus.get(0);
        final String prompt = Prompts.build(entry.prompt(), TEST_PROMPT_TOKENS, 1L);
        final MicroClock clock = MicroClock.system();
        final RequestSpec spec = new RequestSpec("preflight-" + Long.toHexString(System.nanoTime()), "preflight",
                prompt, Prompts.countTokens(prompt), entry.expected(), TEST_MAX_TOKENS, clock.nowMicros(), true);
        final CompletableFuture<RequestEvent> done = new CompletableFuture<>();
        // nothing of the test request is published: it is not part of any run
        final EventSink discard = new EventSink() {
            @Override
            public void token(TokenEvent event) {
            }

            @Override
            public void request(RequestEvent event) {
            }
        };
        final RequestExecution x = new RequestExecution(spec, identity, target, clock, discard, done::complete);
        x.start(client);
        final long waitMs = target.requestTimeout().toMillis() + 5_000;
        try {
            return done.get(waitMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            x.abandon();
            throw new Preflight.Unreachable("the test request to " + Redact.url(target.endpoint().toString())
                    + " did not end within " + waitMs + " ms (--skip-preflight runs anyway)");
        } catch (ExecutionException e) {
            throw new Preflight.Unreachable("the test request failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            x.abandon();
            throw new Preflight.Unreachable("interrupted during the preflight");
        }
    }

    private static boolean restricted(String header) {
        final String h = header.toLowerCase(Locale.ROOT);
        return h.equals("host") || h.equals("connection") || h.equals("content-length") || h.equals("expect")
                || h.equals("upgrade");
    }

    private static String clip(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
