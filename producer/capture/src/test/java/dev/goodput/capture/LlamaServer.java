package dev.goodput.capture;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;

/**
 * A real llama.cpp {@code llama-server}, built by {@code engine/llama-server.sh} into its cache
 * folder, serving the cache's small Llama-2-tokenizer model on a port the kernel picks. Outside CI a
 * missing cache skips the test, saying how to build it; in CI ({@code CI=true}) it fails.
 */
public final class LlamaServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LISTENING = Pattern.compile("listening on (http://[0-9.]+:[0-9]+)");

    /** The alias the model is served under. */
    public static final String MODEL = "tiny-llama2";

    private final Process process;
    private final String base;
    private final List<String> log = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    /** The cache folder the build script writes (GOODPUT_ENGINE_CACHE, else ~/.cache/goodput/engine). */
    public static Path cache() {
        final String env = System.getenv("GOODPUT_ENGINE_CACHE");
        return env != null && !env.isBlank() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "goodput", "engine");
    }

    public static Path binary() {
        return cache().resolve("bin/llama-server");
    }

    public static Path model() {
        return cache().resolve("models/tiny-llama2.gguf");
    }

    /** The model's tokenizer as a Hugging Face tokenizer.json, written by the same script. */
    public static Path tokenizerJson() {
        return cache().resolve("models/llama2-tokenizer.json");
    }

    /** Skips (or, in CI, fails) when the engine has not been built. */
    public static void assumeBuilt() {
        final boolean built = Files.isExecutable(binary()) && Files.isRegularFile(model()) && Files.isRegularFile(tokenizerJson());
        final String how = "the real-engine tests need llama-server and its model in " + cache()
                + ": run engine/llama-server.sh once (10-17 minutes on 2 cores; GOODPUT_ENGINE_CACHE moves the cache)";
        if (!built && "true".equals(System.getenv("CI"))) {
            throw new IllegalStateException(how + " (.ci/run does)");
        }
        Assumptions.assumeTrue(built, how);
    }

    /**
     * Starts llama-server with {@code slots} slots of {@code ctxPerSlot} tokens each, one thread (on a
     * shared 2-core machine more threads make decoding far slower), metrics and slots routes on.
     */
    public static LlamaServer start(int slots, int ctxPerSlot) throws IOException, InterruptedException {
        assumeBuilt();
        return new LlamaServer(slots, ctxPerSlot, List.of());
    }

    /**
     * Starts llama-server as {@link #start} does, with every answer held to a GBNF grammar (the
     * server's default for requests that bring none): once the grammar is complete only the
     * end-of-sequence token may follow, so the random model stops on EOS as a trained model does,
     * counting it in {@code completion_tokens} and sending no text for it.
     */
    public static LlamaServer stoppingOnEos(int slots, int ctxPerSlot, String grammar) throws IOException, InterruptedException {
        assumeBuilt();
        return new LlamaServer(slots, ctxPerSlot, List.of("--grammar", grammar));
    }

    private LlamaServer(int slots, int ctxPerSlot, List<String> extra) throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>(List.of(binary().toString(), "-m", model().toString(), "--alias", MODEL,
                "--host", "127.0.0.1", "--port", "0", "-np", String.valueOf(slots), "-c", String.valueOf(slots * ctxPerSlot),
                "--no-kv-unified", "-t", "1", "--metrics", "--slots", "--no-webui"));
        command.addAll(extra);
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        process = pb.start();
        final CompletableFuture<String> address = new CompletableFuture<>();
        final Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (log) {
                        log.add(line);
                    }
                    final Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        address.complete(m.group(1));
                    }
                }
            } catch (IOException e) {
                address.completeExceptionally(e);
            }
            address.completeExceptionally(new IOException("llama-server exited before it listened: " + tail()));
        }, "llama-server-log");
        reader.setDaemon(true);
        reader.start();
        try {
            // an upper bound on start-up, not a timing assertion: it listens within seconds
            base = address.get(120, TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IOException("llama-server did not start: " + e.getMessage() + "\n" + tail(), e);
        }
        // the model is loaded once /health says ok
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < until) {
            try {
                if (get("/health").path("status").asText().equals("ok")) {
                    return;
                }
            } catch (IOException notYet) {
                // loading: 503
            }
            Thread.sleep(200);
        }
        process.destroyForcibly();
        throw new IOException("llama-server never became healthy: " + tail());
    }

    /** {@code http://127.0.0.1:PORT} */
    public String base() {
        return base;
    }

    /** The OpenAI-compatible base URL. */
    public String v1() {
        return base + "/v1";
    }

    public JsonNode get(String path) throws IOException, InterruptedException {
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (r.statusCode() != 200) {
            throw new IOException(path + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    /** The Prometheus text of {@code /metrics}. */
    public String metrics() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body();
    }

    /** The tokens the engine counts in a text ({@code /tokenize}). */
    public int tokens(String text, boolean special) throws IOException, InterruptedException {
        final String body = JSON.createObjectNode().put("content", text).put("add_special", special).toString();
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/tokenize"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        return JSON.readTree(r.body()).path("tokens").size();
    }

    /** Slots busy now, from {@code /slots}. */
    public int busySlots() throws IOException, InterruptedException {
        int busy = 0;
        for (JsonNode s : get("/slots")) {
            if (s.path("is_processing").asBoolean(false)) {
                busy++;
            }
        }
        return busy;
    }

    /** The server's log so far. */
    public List<String> log() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    private String tail() {
        final List<String> l = log();
        return String.join("\n", l.subList(Math.max(0, l.size() - 20), l.size()));
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
