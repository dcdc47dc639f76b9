package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.ServerMetrics;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.LlamaServer;
import dev.goodput.capture.RequestExecution;
import dev.goodput.capture.RequestSpec;
import dev.goodput.capture.ServerMetricsSampler;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.definitions.Micros;
import dev.goodput.generator.load.LoadRun;
import dev.goodput.generator.load.Preparation;
import dev.goodput.generator.load.Scenario;
import dev.goodput.loop.MicroClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The generator against a real engine: upstream llama.cpp's llama-server (2 slots of 2,048 tokens,
 * continuous batching) serving a small Llama-architecture model with the real Llama-2 tokenizer.
 * Each request's figures are checked against the engine's own account of it (its usage and its
 * per-request {@code timings}).
 */
class LlamaServerIT {

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

    private record Run(List<RequestEvent> requests, RunSummary summary, String console) {
    }

    private static Run run(Target t, String tokenizer, Scenario scenario, String arrival, Double durationS, Long requests) {
        final ByteArrayOutputStream console = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8);
        try (StreamingClient client = new StreamingClient(64)) {
            final Preparation prep = Preparation.of(tokenizer, Path.of("."), t, List.of(scenario), HttpFixtures.CORPUS, out);
            final CollectingSink sink = new CollectingSink();
            final LoadRun.Settings settings = new LoadRun.Settings(t, HttpFixtures.RUN, scenario, HttpFixtures.CORPUS, "g1",
                    arrival, null, 0, durationS, requests, 0, null, 1_000_000, 1, Duration.ofSeconds(5), null, prep);
            final RunSummary summary = new LoadRun(settings, MicroClock.system()).run(client, sink, out, () -> null,
                    () -> (long) sink.tokens.size());
            return new Run(new ArrayList<>(sink.requests), summary, console.toString(StandardCharsets.UTF_8));
        }
    }

    private static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }

    /** Completions: the engine counts exactly the prompt length the scenario names (BOS included), +-1. */
    @Test
    void completionPromptsHaveTheScenarioLengthInTheEnginesTokenizer() {
        for (int length : new int[] {32, 256, 1024}) {
            final Run r = run(target(false, seconds(120), seconds(30)), "server", new Scenario(length, 8, 2.0, null, "cold"),
                    "constant", null, 3L);
            assertThat(r.requests()).hasSize(3).allSatisfy(e -> {
                assertThat(e.getStatus()).as(e.getErrorMessage()).isEqualTo(RequestStatus.OK);
                assertThat(e.getIntendedPromptTokens()).isCloseTo(length, within(1));
                // usage's prompt_tokens is what the engine tokenized
                assertThat(e.getPromptTokens()).isCloseTo(length, within(1));
            });
            assertThat(r.summary().getTokenizer()).isEqualTo("server");
            assertThat(r.summary().getTargetVersion()).startsWith("llama.cpp b");
        }
    }

    /**
     * The same with the model's tokenizer.json, counted in the JVM by Hugging Face's tokenizers library:
     * completions +-1, chat within the template's measured tokens.
     */
    @Test
    void aTokenizerJsonSizesPromptsAsTheEngineCountsThem() {
        final String file = LlamaServer.tokenizerJson().toAbsolutePath().toString();
        for (int length : new int[] {32, 256, 1024}) {
            final Run r = run(target(false, seconds(120), seconds(30)), file, new Scenario(length, 8, 2.0, null, "cold"),
                    "constant", null, 3L);
            assertThat(r.summary().getTokenizer()).isEqualTo("llama2-tokenizer.json");
            assertThat(r.requests()).hasSize(3).allSatisfy(e -> {
                assertThat(e.getStatus()).as(e.getErrorMessage()).isEqualTo(RequestStatus.OK);
                assertThat(e.getPromptTokens()).isCloseTo(length, within(1));
            });
        }
        final Run chat = run(target(true, seconds(120), seconds(30)), file, new Scenario(256, 8, 2.0, null, "cold"),
                "constant", null, 3L);
        final int template = chat.summary().getChatTemplateTokens();
        assertThat(chat.requests()).hasSize(3).allSatisfy(e ->
                assertThat(e.getPromptTokens()).isBetween(256, 256 + template + 1).isCloseTo(256 + template, within(1)));
    }

    /** Chat: the content has the scenario's length; the engine's count adds the template's own tokens, measured once. */
    @Test
    void chatPromptsAreTheContentPlusTheMeasuredTemplate() {
        final Run r = run(target(true, seconds(120), seconds(30)), "server", new Scenario(256, 8, 2.0, null, "cold"),
                "constant", null, 3L);
        final Integer template = r.summary().getChatTemplateTokens();
        System.out.println("LlamaServerIT: " + r.console().lines().filter(l -> l.startsWith("prompts:")).findFirst().orElse(""));
        assertThat(template).as(r.console()).isNotNull().isPositive();
        assertThat(r.requests()).hasSize(3).allSatisfy(e -> {
            assertThat(e.getStatus()).as(e.getErrorMessage()).isEqualTo(RequestStatus.OK);
            assertThat(e.getIntendedPromptTokens()).isCloseTo(256, within(1));
            // within the template's counted size, and +-1 of content + template (the question's last token
            // meets the template's text)
            assertThat(e.getPromptTokens()).isBetween(256, 256 + template + 1).isCloseTo(256 + template, within(1));
        });
    }

    /**
     * The engine's account beside the client's: output tokens equal, and the client's TPOT against
     * the engine's decode time per gap (predicted_ms / (predicted_n - 1)), token-weighted over the run.
     * The client reads each chunk after the engine wrote it, so the two differ by read delays at a
     * request's first and last chunk only: 5 % over 2 s of decode per request allows 100 ms of them.
     */
    @Test
    void outputTokensAndDecodeTimeAgreeWithTheEnginesTimings() {
        for (boolean chat : new boolean[] {false, true}) {
            final Run r = run(target(chat, seconds(120), seconds(30)), "server", new Scenario(64, 96, 1.0, null, "cold"),
                    "constant", null, 4L);
            double client = 0;
            double engine = 0;
            for (RequestEvent e : r.requests()) {
                assertThat(e.getStatus()).as(e.getErrorMessage()).isEqualTo(RequestStatus.OK);
                assertThat(e.getServerTimings()).as("the engine's timings").isNotNull();
                assertThat(e.getOutputTokens()).isEqualTo(e.getServerTimings().getPredictedN()).isEqualTo(96);
                assertThat(e.getContentChunks()).as("one text chunk per token: the test model never picks a textless"
                        + " token (engine/tiny_llama_gguf.py)").isEqualTo(96);
                client += Micros.of(e.getLastChunkTimeUs()) - Micros.of(e.getFirstChunkTimeUs());
                engine += e.getServerTimings().getPredictedMs() * 1000;
            }
            System.out.printf("LlamaServerIT: chat %s, client TPOT / engine decode per gap over %d requests: %.4f%n", chat,
                    r.requests().size(), client / engine);
            assertThat(client / engine).as("client TPOT / engine decode per gap, chat " + chat).isCloseTo(1.0, within(0.05));
        }
    }

    /**
     * Twice as many concurrent requests as slots, with the stall timeout below the wait for a slot:
     * llama-server sends nothing while a request waits, so before the fix every queued request was a
     * "timeout" and TTFT p99 improved as the queue grew. Now the wait is TTFT: none times out, the
     * longest TTFT exceeds the stall timeout, and TTFT p99 at twice the slots is above p99 at the slots.
     */
    @Test
    void queuedRequestsAreSlowNotTimedOut() {
        // below the wait for a slot (a whole answer of 96 tokens, over a second), far above a gap between two tokens
        final Duration stall = Duration.ofMillis(600);
        final Run atSlots = run(target(false, seconds(120), stall), "server", new Scenario(32, 96, null, SLOTS, "cold"),
                "closed_loop", 8.0, null);
        // the engine's own view of its queue, sampled as a run does (--server-metrics)
        final List<ServerMetrics> samples = new CopyOnWriteArrayList<>();
        final Run overloaded;
        try (ServerMetricsSampler sampler = ServerMetricsSampler.start(URI.create(server.base() + "/metrics"),
                Duration.ofMillis(250), "c", "r", "llama-server", samples::add)) {
            assertThat(sampler).as("llama-server's /metrics is an engine's").isNotNull();
            overloaded = run(target(false, seconds(120), stall), "server", new Scenario(32, 96, null, 2 * SLOTS, "cold"),
                    "closed_loop", 8.0, null);
        }
        assertThat(samples).allMatch(m -> m.getEngine().equals("llamacpp"));
        assertThat(samples.stream().mapToDouble(ServerMetrics::getQueued).max().orElse(0))
                .as("the engine counted requests waiting for a slot").isPositive();
        assertThat(samples.get(samples.size() - 1).getGenerationTokensTotal())
                .isGreaterThan(samples.get(0).getGenerationTokensTotal());
        for (Run r : List.of(atSlots, overloaded)) {
            assertThat(r.requests()).isNotEmpty().allSatisfy(e ->
                    assertThat(e.getStatus()).as(e.getErrorMessage()).isEqualTo(RequestStatus.OK));
        }
        final long maxTtftUs = overloaded.requests().stream().mapToLong(LlamaServerIT::ttftUs).max().orElseThrow();
        System.out.printf("LlamaServerIT: TTFT p99 %.1f ms at %d concurrent (the slots), %.1f ms at %d; longest %.1f ms%n",
                p99(atSlots.requests()) / 1000.0, SLOTS, p99(overloaded.requests()) / 1000.0, 2 * SLOTS, maxTtftUs / 1000.0);
        assertThat(maxTtftUs).as("a request waited for a slot longer than the stall timeout").isGreaterThan(stall.toNanos() / 1000);
        assertThat(p99(overloaded.requests())).isGreaterThan(p99(atSlots.requests()));
    }

    private static long ttftUs(RequestEvent e) {
        return Micros.of(e.getFirstChunkTimeUs()) - Micros.of(e.getIntendedSendTimeUs());
    }

    private static long p99(List<RequestEvent> events) {
        final long[] t = events.stream().mapToLong(LlamaServerIT::ttftUs).sorted().toArray();
        return t[(int) Math.ceil(0.99 * t.length) - 1];
    }

    /**
     * llama-server closes the connection after every streamed answer although it says keep-alive. In
     * a closed loop the next request goes out the moment an answer ends, on the connection the server
     * is closing: it fails before any byte of its response and is sent once more on a new connection,
     * recorded; none is lost, none is sent twice silently.
     */
    @Test
    void noRequestIsLostToTheServerClosingKeptAliveConnections() {
        final Run r = run(target(false, seconds(120), seconds(30)), "server", new Scenario(16, 2, 20.0, null, "cold"),
                "poisson", null, 200L);
        System.out.println("LlamaServerIT: keep-alive: " + r.requests().stream().filter(e -> e.getResends() != null).count() + " of "
                + r.requests().size() + " requests sent again");
        assertThat(r.requests()).hasSize(200).allSatisfy(e -> {
            assertThat(e.getStatus()).as(e.getErrorClass() + ": " + e.getErrorMessage()).isEqualTo(RequestStatus.OK);
            if (e.getResends() != null) {
                assertThat(e.getResendReason()).contains("reused connection");
            }
        });
    }

    /** A prompt over the slot's context: HTTP 400, and the event carries the engine's count of the prompt. */
    @Test
    void aPromptOverTheContextIsRefusedWithTheEnginesCount() throws Exception {
        final Run r = run(target(false, seconds(120), seconds(30)), "server", new Scenario(CTX + 60, 8, 2.0, null, "cold"),
                "constant", null, 1L);
        final RequestEvent e = r.requests().get(0);
        assertThat(e.getErrorClass()).isEqualTo("http_400");
        assertThat(e.getErrorMessage()).contains("exceed_context_size_error");
        assertThat(e.getErrorMessage()).contains("n_prompt_tokens");
        assertThat(e.getPromptTokens()).isCloseTo(CTX + 60, within(1));
    }

    /** A client that goes away mid-stream: the request is abandoned, and the engine frees its slot. */
    @Test
    void anAbandonedStreamFreesTheEnginesSlot() throws Exception {
        final Target t = target(false, seconds(120), seconds(30));
        final CollectingSink sink = new CollectingSink();
        final CompletableFuture<RequestEvent> done = new CompletableFuture<>();
        try (StreamingClient client = new StreamingClient(4)) {
            final RequestSpec spec = new RequestSpec("abandon-1", "s", "tell me a long story", 6, "", 1500,
                    MicroClock.system().nowMicros(), false);
            final RequestExecution x = new RequestExecution(spec, HttpFixtures.RUN, t, MicroClock.system(), sink, done::complete);
            x.start(client);
            // upper bounds on waits for a state, not timing assertions
            final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (sink.tokens.size() < 5 && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertThat(server.busySlots()).isEqualTo(1);
            x.abandon();
            assertThat(done.get(60, TimeUnit.SECONDS).getStatus()).isEqualTo(RequestStatus.ABANDONED);
        }
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.busySlots() > 0 && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        assertThat(server.busySlots()).isZero();
    }
}
