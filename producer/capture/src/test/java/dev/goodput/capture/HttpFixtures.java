package dev.goodput.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.RequestEvent;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.Corpus;
import dev.goodput.loop.MicroClock;

/** Shared pieces of the producer's HTTP tests. */
public final class HttpFixtures {
    public static final Corpus CORPUS = Corpus.load(projectFile("config/corpus/prompts.jsonl"));

    /**
     * A file of the checkout, found from the working directory upward: a module's tests run in its
     * own folder, one or two levels below the checkout (producer/capture, runner).
     */
    public static Path projectFile(String relative) {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (java.nio.file.Files.isRegularFile(d.resolve("pom.xml")) && java.nio.file.Files.isDirectory(d.resolve("config"))) {
                return d.resolve(relative);
            }
        }
        throw new IllegalStateException("no checkout above " + Path.of("").toAbsolutePath() + " (a pom.xml beside a config folder)");
    }
    public static final RunIdentity RUN = new RunIdentity("c".repeat(64), "run-t", "sim", "H100", 1,
            new Contract.Decoding(0.0, 1.0, null, 7L, false), "contains", 1.0);

    private HttpFixtures() {
    }

    public static Target target(String baseUrl, boolean chat, boolean continuousUsage, Duration timeout, Duration stall) {
        return new Target(baseUrl, chat, "m", null, Map.of(), "sim", timeout, stall, continuousUsage);
    }

    public static Target target(String baseUrl) {
        return target(baseUrl, true, false, Duration.ofSeconds(20), Duration.ofSeconds(10));
    }

    public static RequestSpec spec(String id, int maxTokens, long intendedUs) {
        final Corpus.Entry e = CORPUS.get(0);
        return new RequestSpec(id, "s1", e.prompt(), Prompts.countTokens(e.prompt()), e.expected(), maxTokens, intendedUs, false);
    }

    /** Runs one request to its end and returns its request event. */
    public static RequestEvent runOne(StreamingClient client, Target target, RequestSpec spec, CollectingSink sink) throws Exception {
        final CompletableFuture<RequestEvent> done = new CompletableFuture<>();
        new RequestExecution(spec, RUN, target, MicroClock.system(), sink, done::complete).start(client);
        return done.get(30, TimeUnit.SECONDS);
    }

    /** A server that answers every POST with the given SSE body (chunked), then ends the response. */
    public static HttpServer scripted(List<String> events, boolean closeWithoutEnd) throws IOException {
        final HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            final OutputStream out = ex.getResponseBody();
            for (String e : events) {
                out.write(e.getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            if (closeWithoutEnd) {
                ex.getHttpContext().getServer();
                // drop the connection without the terminating chunk
                ex.close();
                return;
            }
            out.close();
        });
        s.start();
        return s;
    }

    public static String baseUrl(HttpServer s) {
        return "http://127.0.0.1:" + s.getAddress().getPort() + "/v1";
    }
}
