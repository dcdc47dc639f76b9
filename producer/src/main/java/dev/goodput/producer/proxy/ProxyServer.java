package dev.goodput.producer.proxy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.goodput.config.Redact;
import dev.goodput.producer.MicroClock;
import dev.goodput.producer.Prompts;
import dev.goodput.producer.client.EventSink;
import dev.goodput.producer.client.RequestExecution;
import dev.goodput.producer.client.RequestSpec;
import dev.goodput.producer.client.RunIdentity;
import dev.goodput.producer.client.Target;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpField;

/**
 * A passive OpenAI-compatible reverse proxy: every request goes to the upstream unchanged and its
 * answer comes back to the client byte for byte as it arrives (headers too, minus hop-by-hop ones);
 * the completions calls ({@code /chat/completions}, {@code /completions}) are also observed and
 * published as the generator publishes its own requests, so the pipeline judges real traffic under
 * the contract. The request's arrival at the proxy stands for its intended send. Prompt and answer
 * text are never stored: only their lengths (from the server's usage, else the contract's tokenizer).
 */
public final class ProxyServer implements AutoCloseable {

    /** Headers that belong to one connection, not to the message (RFC 9110 section 7.6.1), and those the server sets itself. */
    static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "proxy-authenticate",
            "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length", "date");

    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        // every chunk is written as it arrives: Nagle's algorithm would hold a small write back until the
        // previous one is acknowledged, and with delayed acknowledgements that is up to 40 ms per chunk.
        // The JDK server reads this once, when its first server starts.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final HttpServer server;
    private final ExecutorService threads;
    private final HttpClient http;
    private final URI upstream;
    private final RunIdentity run;
    /** Whether to ask the upstream for usage on a streamed call whose client did not, keeping that event from the client. */
    private volatile boolean askUsage;
    /** How long a run id lasts (microseconds), or 0 for one run id throughout. */
    private volatile long rollEveryUs;
    private final long startedUs;
    private final String scenarioId;
    private final EventSink sink;
    private final MicroClock clock;
    private final Target target;
    private final AtomicLong observed = new AtomicLong();
    private final AtomicLong passedThrough = new AtomicLong();

    /**
     * @param upstream   the server the proxy stands for: its scheme, host, port and path prefix
     * @param scenarioId the scenario the observed requests are published under
     * @param target     how the upstream is called: timeouts (the request's and the stall's) and the secrets to mask in errors
     */
    public ProxyServer(InetSocketAddress listen, URI upstream, HttpClient http, RunIdentity run, String scenarioId, Target target,
                       EventSink sink, MicroClock clock) throws IOException {
        this.upstream = upstream;
        this.http = http;
        this.run = run;
        this.startedUs = clock.nowMicros();
        this.scenarioId = scenarioId;
        this.target = target;
        this.sink = sink;
        this.clock = clock;
        this.server = HttpServer.create(listen, 1024);
        this.threads = Executors.newCachedThreadPool(r -> {
            final Thread t = new Thread(r, "goodput-proxy");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    /**
     * Rolls the run id over every {@code every}: calls arriving in the n-th span are published under
     * {@code <run>-000n}, so that reports and replays of a proxy that runs for weeks cover bounded spans.
     */
    public ProxyServer rollEvery(Duration every) {
        if (every.isNegative()) {
            throw new IllegalArgumentException("--roll-every must be 0 (never) or more");
        }
        this.rollEveryUs = every.toNanos() / 1000;
        return this;
    }

    /**
     * Asks the upstream for usage ({@code stream_options.include_usage}) on streamed calls whose
     * client did not, so that output tokens come from the server rather than counted chunks, and
     * removes that usage event before the client sees it. Off by default: it changes the request the
     * upstream gets, and the stream must then be re-cut event by event rather than handed on byte
     * for byte as it arrives.
     */
    public ProxyServer askUsage(boolean ask) {
        this.askUsage = ask;
        return this;
    }

    /** The run a call arriving at {@code arrivalUs} belongs to. */
    RunIdentity runAt(long arrivalUs) {
        final long every = rollEveryUs;
        if (every <= 0) {
            return run;
        }
        final long span = 1 + Math.max(0, arrivalUs - startedUs) / every;
        return new RunIdentity(run.contractId(), String.format(Locale.ROOT, "%s-%04d", run.runId(), span), run.targetId(),
                run.gpuType(), run.gpuCount(), run.decoding(), run.qualityMetric(), run.qualityFloor(), run.objectives());
    }

    /** Where clients reach the proxy. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** Completions calls observed so far. */
    public long observed() {
        return observed.get();
    }

    /** Other calls passed through so far. */
    public long passedThrough() {
        return passedThrough.get();
    }

    /** Whether a path is a completions call the proxy observes. */
    static boolean observedPath(String method, String path) {
        return "POST".equals(method) && (path.endsWith("/chat/completions") || path.endsWith("/completions"));
    }

    /** The upstream URL of a request: the upstream's origin and path prefix, then the request's path and query. */
    URI upstreamUri(URI request) {
        final String prefix = upstream.getRawPath() == null ? "" : upstream.getRawPath().replaceAll("/+$", "");
        final String path = request.getRawPath();
        final String query = request.getRawQuery();
        return URI.create(upstream.getScheme() + "://" + upstream.getRawAuthority() + prefix + path + (query == null ? "" : "?" + query));
    }

    private void handle(HttpExchange ex) throws IOException {
        final long arrivalUs = clock.nowMicros();
        final String method = ex.getRequestMethod();
        byte[] body = ex.getRequestBody().readAllBytes();
        final JsonNode json = observedPath(method, ex.getRequestURI().getPath()) ? parse(body) : null;
        final boolean addUsage = askUsage && json != null && json.path("stream").asBoolean(false)
                && !json.path("stream_options").path("include_usage").asBoolean(false);
        if (addUsage) {
            ((ObjectNode) json).withObject("/stream_options").put("include_usage", true);
            body = JSON.writeValueAsBytes(json);
        }
        final Request request = http.newRequest(upstreamUri(ex.getRequestURI())).method(method)
                .timeout(target.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .idleTimeout(target.stallTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .headers(h -> ex.getRequestHeaders().forEach((name, values) -> {
                    if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
                        values.forEach(v -> h.add(name, v));
                    }
                }));
        if (body.length > 0 || "POST".equals(method) || "PUT".equals(method)) {
            final String type = ex.getRequestHeaders().getFirst("Content-Type");
            request.body(new BytesRequestContent(type == null ? "application/octet-stream" : type, body));
        }
        final Forwarder forward = new Forwarder(ex);
        if (!observedPath(method, ex.getRequestURI().getPath())) {
            passedThrough.incrementAndGet();
            request.send(forward);
            forward.await();
            return;
        }
        observed.incrementAndGet();
        if (addUsage) {
            forward.stripUsage();
        }
        final boolean chat = ex.getRequestURI().getPath().endsWith("/chat/completions");
        final RequestSpec spec = new RequestSpec("proxy-" + UUID.randomUUID(), scenarioId, "", promptTokens(json, chat), null,
                json.path("max_tokens").asInt(json.path("max_completion_tokens").asInt(0)), arrivalUs, false);
        // the client's own credentials are the secrets to mask should the upstream echo them in an error
        final Map<String, String> credentials = new LinkedHashMap<>();
        ex.getRequestHeaders().forEach((name, values) -> {
            if (Redact.secretHeader(name) && !values.isEmpty()) {
                credentials.put(name, values.get(0));
            }
        });
        final Target observedTarget = new Target(target.baseUrl(), chat, json.path("model").asText(target.model()), null, credentials,
                target.targetId(), target.requestTimeout(), target.stallTimeout(), false);
        final RequestExecution exec = RequestExecution.observing(spec, runAt(arrivalUs), observedTarget, clock, sink, e -> { }, request::abort);
        request.onRequestBegin(r -> exec.sent());
        forward.observe(exec, json.path("stream").asBoolean(false), chat);
        request.send(forward);
        forward.await();
    }

    private static JsonNode parse(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    /** The prompt's length under the contract's whitespace tokenizer, used when the server reports no usage. */
    static int promptTokens(JsonNode json, boolean chat) {
        if (!chat) {
            final JsonNode p = json.path("prompt");
            return p.isTextual() ? Prompts.countTokens(p.asText()) : 0;
        }
        int n = 0;
        for (JsonNode m : json.path("messages")) {
            final JsonNode c = m.path("content");
            if (c.isTextual()) {
                n += Prompts.countTokens(c.asText());
            } else if (c.isArray()) {
                for (JsonNode part : c) {
                    n += Prompts.countTokens(part.path("text").asText(""));
                }
            }
        }
        return n;
    }

    /** The upstream's headers a client gets: all but the hop-by-hop ones. */
    static List<HttpField> endToEnd(Iterable<HttpField> fields) {
        final ArrayList<HttpField> out = new ArrayList<>();
        for (HttpField f : fields) {
            if (!HOP_BY_HOP.contains(f.getLowerCaseName())) {
                out.add(f);
            }
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
