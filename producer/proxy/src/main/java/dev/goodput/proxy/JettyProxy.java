package dev.goodput.proxy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.goodput.capture.RequestExecution;
import dev.goodput.capture.StallWatch;
import dev.goodput.config.Redact;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;

/**
 * The proxy for a TLS upstream: the JDK's HTTP server takes the clients, a thread each, and
 * Jetty's client calls the upstream ({@link Forwarder} hands the answer on).
 */
final class JettyProxy implements ProxyServer.Engine {

    static {
        // every chunk is written as it arrives: Nagle's algorithm would hold a small write back until the
        // previous one is acknowledged, and with delayed acknowledgements that is up to 40 ms per chunk.
        // The JDK server reads this once, when its first server starts.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final ProxyServer proxy;
    private final HttpClient http;
    private final HttpServer server;
    private final ExecutorService threads;

    JettyProxy(ProxyServer proxy, InetSocketAddress listen, HttpClient http) throws IOException {
        this.proxy = proxy;
        this.http = http;
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

    @Override
    public InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public String timing() {
        return "normal (the JDK server's and Jetty's threads are not raised)";
    }

    private void handle(HttpExchange ex) throws IOException {
        final long arrivalUs = proxy.clock.nowMicros();
        final String method = ex.getRequestMethod();
        final String path = ex.getRequestURI().getPath();
        byte[] body = ex.getRequestBody().readAllBytes();
        final JsonNode json = ProxyServer.observedPath(method, path) ? ProxyServer.parse(body) : null;
        final byte[] asked = json == null ? null : proxy.withUsageAsked(json);
        if (asked != null) {
            body = asked;
        }
        final Request request = http.newRequest(proxy.upstreamUri(ex.getRequestURI())).method(method)
                .timeout(proxy.target.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                // until the head, only the request timeout: a queued request gets nothing (StallWatch)
                .idleTimeout(proxy.target.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .headers(h -> ex.getRequestHeaders().forEach((name, values) -> {
                    if (!ProxyServer.NOT_HANDED_ON.contains(name.toLowerCase(Locale.ROOT))) {
                        values.forEach(v -> h.add(name, v));
                    }
                }));
        if (body.length > 0 || "POST".equals(method) || "PUT".equals(method)) {
            final String type = ex.getRequestHeaders().getFirst("Content-Type");
            request.body(new BytesRequestContent(type == null ? "application/octet-stream" : type, body));
        }
        final Forwarder forward = new Forwarder(ex);
        forward.watch(new StallWatch(http.getScheduler(), proxy.target.stallTimeout().toMillis(), request::abort));
        if (json == null) {
            proxy.passedThrough.incrementAndGet();
            request.send(forward);
            forward.await();
            return;
        }
        proxy.observed.incrementAndGet();
        if (asked != null) {
            forward.stripUsage();
        }
        final boolean chat = path.endsWith("/chat/completions");
        final Map<String, String> credentials = new LinkedHashMap<>();
        ex.getRequestHeaders().forEach((name, values) -> {
            if (Redact.secretHeader(name) && !values.isEmpty()) {
                credentials.put(name, values.get(0));
            }
        });
        final RequestExecution exec = proxy.observer(json, chat, arrivalUs, new ClientIds(ex.getRequestHeaders().getFirst("X-Request-Id"),
                ex.getRequestHeaders().getFirst(ClientIds.SESSION_HEADER)), credentials, request::abort);
        request.onRequestBegin(r -> exec.sent());
        forward.observe(exec, json.path("stream").asBoolean(false), chat);
        request.send(forward);
        forward.await();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
