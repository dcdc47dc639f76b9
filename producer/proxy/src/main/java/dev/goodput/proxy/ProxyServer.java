package dev.goodput.proxy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.goodput.capture.EventSink;
import dev.goodput.capture.RequestExecution;
import dev.goodput.capture.RequestSpec;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.Target;
import dev.goodput.capture.TimingPriority;
import dev.goodput.capture.tokens.TokenCounter;
import dev.goodput.loop.MicroClock;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpField;

/**
 * A passive OpenAI-compatible reverse proxy: every request goes to the upstream unchanged and its
 * answer comes back to the client byte for byte as it arrives (headers too, minus hop-by-hop ones);
 * the completions calls ({@code /chat/completions}, {@code /completions}) are also observed and
 * published as the generator publishes its own requests, so the pipeline judges real traffic under
 * the contract. The request's arrival at the proxy stands for its intended send. Prompt and answer
 * text are never stored: only their lengths (from the server's usage, else the contract's tokenizer).
 *
 * <p>A plain {@code http://} upstream is served by one selector thread for clients and upstream
 * alike ({@link NioProxy}); a TLS upstream by the JDK's server and Jetty's client ({@link JettyProxy}).
 */
public final class ProxyServer implements AutoCloseable {

    /**
     * Headers that belong to one connection, not to the message (RFC 9110 section 7.6.1), but for
     * Transfer-Encoding, which goes with the body's framing: each proxy decides on it.
     */
    static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "proxy-authenticate",
            "proxy-authorization", "te", "trailer", "upgrade");

    /** What the JDK server's proxy does not hand on, either way: hop-by-hop headers and those the server and client set themselves. */
    static final Set<String> NOT_HANDED_ON = with(HOP_BY_HOP, "transfer-encoding", "host", "content-length", "date");

    /** {@code names} and {@code more}. */
    static Set<String> with(Set<String> names, String... more) {
        final java.util.HashSet<String> all = new java.util.HashSet<>(names);
        all.addAll(List.of(more));
        return Set.copyOf(all);
    }

    static final ObjectMapper JSON = new ObjectMapper();

    /** What serves the clients and calls the upstream. */
    interface Engine extends AutoCloseable {
        InetSocketAddress address();

        /** The scheduling class of the thread that forwards and times the bytes. */
        String timing();

        @Override
        void close();
    }

    private final URI upstream;
    /** The upstream's path without its trailing slashes, put before every request's path. */
    private final String upstreamPrefix;
    private final RunIdentity run;
    /** Whether to ask the upstream for usage on a streamed call whose client did not, keeping that event from the client. */
    private volatile boolean askUsage;
    /** How long a run id lasts (microseconds), or 0 for one run id throughout. */
    private volatile long rollEveryUs;
    /** Connections to a plain-HTTP upstream at most; requests beyond them wait, in order. */
    private volatile int maxConnections = 4096;
    /** How long a client's kept-alive connection may sit without a request before the proxy closes it (plain-HTTP upstreams). */
    private volatile long clientIdleNanos = Duration.ofSeconds(75).toNanos();
    private volatile TokenCounter tokenizer = TokenCounter.WHITESPACE;
    private final long startedUs;
    private final String scenarioId;
    /** The turns of the sessions clients name ({@code X-Session-Id}): the 100,000 most recently seen. */
    private final SessionTurns turns = new SessionTurns(100_000);
    private final EventSink sink;
    final MicroClock clock;
    final Target target;
    final AtomicLong observed = new AtomicLong();
    final AtomicLong passedThrough = new AtomicLong();
    /** Completions calls forwarded but not observed: the observing thread was too far behind. */
    final AtomicLong unobserved = new AtomicLong();
    /** About 2.5 s of the proxy's full rate on 2 cores ({@link #observerBacklog}). */
    public static final long DEFAULT_OBSERVER_BACKLOG = 100_000;
    private volatile long observerBacklog = DEFAULT_OBSERVER_BACKLOG;
    private final Engine engine;

    /** A proxy whose forwarding thread keeps the normal scheduling class. */
    public ProxyServer(InetSocketAddress listen, URI upstream, HttpClient http, RunIdentity run, String scenarioId, Target target,
                       EventSink sink, MicroClock clock) throws IOException {
        this(listen, upstream, http, run, scenarioId, target, sink, clock, TimingPriority.NORMAL);
    }

    /**
     * @param upstream   the server the proxy stands for: its scheme, host, port and path prefix
     * @param http       the client for a TLS upstream (null for a plain-HTTP one, which does not use it)
     * @param scenarioId the scenario the observed requests are published under
     * @param target     how the upstream is called: timeouts (the request's and the stall's) and the secrets to mask in errors
     * @param priority   the scheduling class of the thread that forwards and times every byte (plain-HTTP upstreams)
     * @throws TimingPriority.Refused when {@link TimingPriority#REALTIME} is refused
     */
    public ProxyServer(InetSocketAddress listen, URI upstream, HttpClient http, RunIdentity run, String scenarioId, Target target,
                       EventSink sink, MicroClock clock, TimingPriority priority) throws IOException {
        this(listen, upstream, http, run, scenarioId, target, sink, clock, priority, !"http".equals(upstream.getScheme()));
    }

    /** @param viaJetty serve through the JDK's server and Jetty's client whatever the scheme (tests) */
    ProxyServer(InetSocketAddress listen, URI upstream, HttpClient http, RunIdentity run, String scenarioId, Target target,
                EventSink sink, MicroClock clock, TimingPriority priority, boolean viaJetty) throws IOException {
        this.upstream = upstream;
        this.upstreamPrefix = upstream.getRawPath() == null ? "" : upstream.getRawPath().replaceAll("/+$", "");
        this.run = run;
        this.startedUs = clock.nowMicros();
        this.scenarioId = scenarioId;
        this.target = target;
        this.sink = sink;
        this.clock = clock;
        this.engine = viaJetty ? new JettyProxy(this, listen, http) : new NioProxy(this, listen, priority);
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
    /**
     * The contract's tokenizer: counts prompts, and answers whose server reported no usage (default the
     * whitespace tokenizer, whose answers are counted in content chunks).
     */
    public ProxyServer tokenizer(TokenCounter counter) {
        this.tokenizer = counter;
        return this;
    }

    public ProxyServer askUsage(boolean ask) {
        this.askUsage = ask;
        return this;
    }

    /** Opens at most {@code n} connections to a plain-HTTP upstream; requests beyond them wait their turn. */
    public ProxyServer maxConnections(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("--max-connections must be 1 or more");
        }
        this.maxConnections = n;
        return this;
    }

    /**
     * Closes a client's connection that has carried no bytes for {@code idle} between requests (75 s
     * by default, as nginx's {@code keepalive_timeout}), and one whose request stops coming in for
     * as long: a client that opens connections and forgets them cannot exhaust the proxy.
     */
    public ProxyServer clientIdleTimeout(Duration idle) {
        if (idle.isNegative() || idle.isZero()) {
            throw new IllegalArgumentException("--client-idle-timeout must be more than 0");
        }
        this.clientIdleNanos = idle.toNanos();
        return this;
    }

    /**
     * Lowers the observing threads (parsing, events, Kafka) to {@code nice}, so that under CPU
     * contention forwarding goes first; call once the proxy and its sink are up. Returns what was
     * done, to be said on start ({@link ObserverNice}).
     */
    public String lowerObservers(int nice) {
        return ObserverNice.apply(nice);
    }

    /**
     * Callbacks (chunks read, ends) the observing thread may be behind before a new completions call
     * is forwarded without being observed, and counted ({@link #unobserved()}): under saturation that
     * lasts, the observer (lowered by {@link #lowerObservers}, or starved) would otherwise queue
     * without bound. Calls already observed stay observed to their end. Plain-HTTP upstreams (the
     * TLS path observes on the forwarding threads themselves).
     */
    public ProxyServer observerBacklog(long callbacks) {
        if (callbacks < 0) {
            throw new IllegalArgumentException("--observer-backlog must be 0 or more");
        }
        this.observerBacklog = callbacks;
        return this;
    }

    long observerBacklog() {
        return observerBacklog;
    }

    long clientIdleNanos() {
        return clientIdleNanos;
    }

    int maxUpstreamConnections() {
        return maxConnections;
    }

    boolean askUsage() {
        return askUsage;
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
        return engine.address();
    }

    /** The scheduling class of the thread that forwards and times the bytes, as applied. */
    public String timing() {
        return engine.timing();
    }

    /** Completions calls observed so far. */
    public long observed() {
        return observed.get();
    }

    /** Completions calls forwarded without being observed, the observer being too far behind ({@link #observerBacklog}). */
    public long unobserved() {
        return unobserved.get();
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
        return URI.create(upstream.getScheme() + "://" + upstream.getRawAuthority() + upstreamPath(request.getRawPath(), request.getRawQuery()));
    }

    /** The upstream's path prefix, then the request's path and query. */
    String upstreamPath(String rawPath, String rawQuery) {
        return upstreamPrefix + rawPath + (rawQuery == null ? "" : "?" + rawQuery);
    }

    URI upstream() {
        return upstream;
    }

    /** A request body as JSON, or an empty object when it is not JSON (the observer then reports what the upstream says). */
    static JsonNode parse(byte[] body) {
        try {
            final JsonNode n = JSON.readTree(body);
            return n == null ? JSON.createObjectNode() : n;
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    /**
     * The body to send upstream: with {@code stream_options.include_usage} added when the proxy asks
     * for usage on a streamed call whose client did not, else null (the client's bytes go unchanged).
     */
    byte[] withUsageAsked(JsonNode json) {
        if (!askUsage || !(json instanceof ObjectNode o) || !json.path("stream").asBoolean(false)
                || json.path("stream_options").path("include_usage").asBoolean(false)) {
            return null;
        }
        o.withObject("/stream_options").put("include_usage", true);
        try {
            return JSON.writeValueAsBytes(json);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The observer of one completions call: the request's arrival stands for its intended send.
     *
     * @param ids             the client's {@code X-Request-Id}, kept in the request id so the call can be found by it, and its
     *                        {@code X-Session-Id}: the call is a turn of that session, numbered in the order they arrive
     * @param credentials     the client's secret headers, masked should the upstream echo them in an error
     * @param cancel          what abandons the call upstream
     */
    RequestExecution observer(JsonNode json, boolean chat, long arrivalUs, ClientIds ids, Map<String, String> credentials,
                              Consumer<Throwable> cancel) {
        final String session = ClientIds.usable(ids.sessionId());
        final RequestSpec spec = new RequestSpec(requestId(ids.requestId()), scenarioId, "", promptTokens(json, chat, tokenizer), null,
                json.path("max_tokens").asInt(json.path("max_completion_tokens").asInt(0)), null, arrivalUs, false, List.of(), session,
                turns.next(session));
        final Target observedTarget = new Target(target.baseUrl(), chat, json.path("model").asText(target.model()), null, credentials,
                target.targetId(), target.requestTimeout(), target.stallTimeout(), false);
        return RequestExecution.observing(spec, runAt(arrivalUs), observedTarget, clock, sink, e -> { }, cancel)
                .countingWith(tokenizer);
    }

    /**
     * An observed call's request id: {@code proxy-<uuid>}, or {@code proxy-<client id>-<8 hex>} when the
     * client sent an {@code X-Request-Id} (printable ASCII, up to 128 characters): clients may repeat
     * their ids, and two calls must never share one.
     */
    static String requestId(String clientRequestId) {
        if (ClientIds.usable(clientRequestId) == null) {
            return "proxy-" + UUID.randomUUID();
        }
        // not String.format, which parses its pattern on every call
        final String hex = Integer.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextInt());
        return "proxy-" + clientRequestId + "-" + "0".repeat(8 - hex.length()) + hex;
    }

    /** The prompt's length under the contract's tokenizer (its content, on chat), used when the server reports no usage. */
    static int promptTokens(JsonNode json, boolean chat, TokenCounter tokenizer) {
        if (!chat) {
            final JsonNode p = json.path("prompt");
            return p.isTextual() ? tokenizer.count(p.asText(), true) : 0;
        }
        int n = 0;
        for (JsonNode m : json.path("messages")) {
            final JsonNode c = m.path("content");
            if (c.isTextual()) {
                n += tokenizer.count(c.asText(), false);
            } else if (c.isArray()) {
                for (JsonNode part : c) {
                    n += tokenizer.count(part.path("text").asText(""), false);
                }
            }
        }
        return n;
    }

    /** The upstream's headers a client gets: all but the hop-by-hop ones. */
    static List<HttpField> endToEnd(Iterable<HttpField> fields) {
        final ArrayList<HttpField> out = new ArrayList<>();
        for (HttpField f : fields) {
            if (!NOT_HANDED_ON.contains(f.getLowerCaseName())) {
                out.add(f);
            }
        }
        return out;
    }

    @Override
    public void close() {
        engine.close();
    }
}
