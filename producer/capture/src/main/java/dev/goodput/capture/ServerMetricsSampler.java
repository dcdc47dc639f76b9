package dev.goodput.capture;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.goodput.avro.ServerMetrics;
import dev.goodput.definitions.Micros;
import dev.goodput.loop.MicroClock;

/**
 * Samples the engine's own Prometheus endpoint every few seconds during a run (vLLM's
 * {@code vllm:*}, SGLang's {@code sglang:*}, llama.cpp's {@code llamacpp:*} names) and hands each
 * sample on to be kept with the run: queue depth, running requests, prompt and generation token
 * totals, and every sample of the engine's families. A sample that fails is skipped and counted;
 * sampling never touches a request.
 */
public final class ServerMetricsSampler implements AutoCloseable {

    /** An engine's names for the four figures: queued, running, prompt tokens total, generation tokens total. */
    private record Names(String engine, String queued, String running, String prompt, String generation) {
    }

    private static final List<Names> ENGINES = List.of(
            new Names("llamacpp", "llamacpp:requests_deferred", "llamacpp:requests_processing",
                    "llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total"),
            new Names("vllm", "vllm:num_requests_waiting", "vllm:num_requests_running",
                    "vllm:prompt_tokens_total", "vllm:generation_tokens_total"),
            new Names("sglang", "sglang:num_queue_reqs", "sglang:num_running_reqs",
                    "sglang:prompt_tokens_total", "sglang:generation_tokens_total"));

    private final URI uri;
    private final String[] ids;
    private final Consumer<ServerMetrics> sink;
    private final MicroClock clock = MicroClock.system();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "goodput-server-metrics");
        t.setDaemon(true);
        return t;
    });
    private volatile long samples;
    private volatile long failures;

    private ServerMetricsSampler(URI uri, String[] ids, Consumer<ServerMetrics> sink) {
        this.uri = uri;
        this.ids = ids;
        this.sink = sink;
    }

    /**
     * Starts sampling {@code uri} every {@code every} when it answers now with an engine's metrics;
     * else returns null and says nothing was found.
     */
    public static ServerMetricsSampler start(URI uri, Duration every, String contractId, String runId, String targetId,
                                             Consumer<ServerMetrics> sink) {
        final ServerMetricsSampler s = new ServerMetricsSampler(uri, new String[] {contractId, runId, targetId}, sink);
        if (s.sample() == null) {
            return null;
        }
        s.timer.scheduleAtFixedRate(() -> {
            if (s.sample() == null) {
                s.failures++;
            }
        }, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return s;
    }

    /** Reads the endpoint once and hands the sample on; null when it did not answer with an engine's metrics. */
    ServerMetrics sample() {
        final String text;
        try {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (r.statusCode() != 200) {
                return null;
            }
            text = r.body();
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        final ServerMetrics m = parse(text, clock.nowMicros(), ids[0], ids[1], ids[2]);
        if (m != null) {
            samples++;
            sink.accept(m);
        }
        return m;
    }

    /** A sample from the Prometheus text format: the first engine whose names it holds, its families only; else null. */
    static ServerMetrics parse(String text, long nowUs, String contractId, String runId, String targetId) {
        final Map<String, Double> series = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            final String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            // name{labels} value [timestamp]; a label value may hold spaces, so the value follows the closing brace
            final int brace = l.lastIndexOf('}');
            final int split = l.indexOf(' ', brace < 0 ? 0 : brace);
            if (split < 0) {
                continue;
            }
            final String[] rest = l.substring(split + 1).strip().split("\\s+");
            try {
                series.put(l.substring(0, split), Double.parseDouble(rest[0]));
            } catch (NumberFormatException notANumber) {
                // a line this reader does not know: skipped, as Prometheus would refuse it
            }
        }
        for (Names n : ENGINES) {
            final String prefix = n.engine() + ":";
            if (series.keySet().stream().noneMatch(k -> k.startsWith(prefix))) {
                continue;
            }
            final Map<String, Double> own = new LinkedHashMap<>();
            series.forEach((k, v) -> {
                if (k.startsWith(prefix)) {
                    own.put(k, v);
                }
            });
            return ServerMetrics.newBuilder().setContractId(contractId).setRunId(runId).setTargetId(targetId)
                    .setSampledAtUs(Micros.toInstant(nowUs)).setEngine(n.engine())
                    .setQueued(sum(own, n.queued())).setRunning(sum(own, n.running())).setPromptTokensTotal(sum(own, n.prompt()))
                    .setGenerationTokensTotal(sum(own, n.generation())).setSamples(Map.copyOf(own)).build();
        }
        return null;
    }

    /** The sum over a metric's series (vLLM labels each by model), or null when it has none. */
    private static Double sum(Map<String, Double> own, String name) {
        Double total = null;
        for (Map.Entry<String, Double> e : own.entrySet()) {
            final String k = e.getKey();
            if (k.equals(name) || k.startsWith(name + "{")) {
                total = (total == null ? 0 : total) + e.getValue();
            }
        }
        return total;
    }

    /** Where it samples, how many samples it took, and how many attempts failed. */
    public String describe() {
        return uri + ": " + samples + " sample(s), " + failures + " failed";
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // a last sample once the run's requests have ended: the engine's counters then span the whole run
        sample();
    }
}
