package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's Prometheus server as a child process for a test: scraping one target every second, on
 * a port the kernel picks (read back from its log), queried through its HTTP API.
 */
final class RealPrometheus implements AutoCloseable {

    static final Path BINARY = Path.of("/usr/bin/prometheus");
    // a whole line: the log may be read while the port is half written
    private static final Pattern LISTENING = Pattern.compile("msg=\"Listening on\" address=[^ ]*:(\\d+)\\n");
    private static final Duration PATIENCE = Duration.ofSeconds(180);

    private final Process process;
    private final Path log;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper();

    /** Skips outside CI when Prometheus is not installed; fails in CI. */
    static void assumeInstalled() {
        if (!Files.isExecutable(BINARY)) {
            assertThat(System.getenv("CI")).as("prometheus is required in CI (apt-get install prometheus)").isNotEqualTo("true");
            Assumptions.abort("Debian's prometheus is not installed");
        }
    }

    RealPrometheus(Path dir, String target, String... flags) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("prometheus.yml"), "global:\n  scrape_interval: 1s\n"
                + "scrape_configs:\n  - job_name: goodput\n    static_configs:\n      - targets: ['" + target + "']\n");
        final List<String> cmd = new ArrayList<>(List.of(BINARY.toString(), "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:0"));
        cmd.addAll(List.of(flags));
        this.log = dir.resolve("prometheus.log");
        this.process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        final long deadline = System.nanoTime() + PATIENCE.toNanos();
        int found = -1;
        while (found < 0 && System.nanoTime() < deadline && process.isAlive()) {
            final Matcher m = LISTENING.matcher(Files.readString(log));
            if (m.find()) {
                found = Integer.parseInt(m.group(1));
            } else {
                Thread.sleep(100);
            }
        }
        if (found < 0) {
            process.destroyForcibly();
            throw new AssertionError("Prometheus did not start: " + Files.readString(log));
        }
        this.port = found;
        // listening is not ready: the TSDB opens after the listener
        String answer = "";
        while (System.nanoTime() < deadline) {
            try {
                final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
                answer = r.statusCode() + " " + r.body();
            } catch (IOException notYet) {
                answer = notYet.toString();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("Prometheus on port " + port + " never became ready (" + answer + "): " + Files.readString(log));
    }

    int port() {
        return port;
    }

    /** The JSON {@code data.result} of an instant query, evaluated at {@code timeS} (null: now). */
    JsonNode query(String promql, Double timeS) throws IOException, InterruptedException {
        final String url = "http://127.0.0.1:" + port + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)
                + (timeS == null ? "" : "&time=" + String.format(Locale.ROOT, "%.3f", timeS));
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        final JsonNode body = json.readTree(r.body());
        if (!"success".equals(body.path("status").asText())) {
            throw new AssertionError("Prometheus refused " + promql + ": " + r.body());
        }
        return body.path("data").path("result");
    }

    /** The one value an instant query gives at {@code timeS}, or NaN when it gives none. */
    double value(String promql, double timeS) throws IOException, InterruptedException {
        final JsonNode result = query(promql, timeS);
        return result.size() == 0 ? Double.NaN : Double.parseDouble(result.get(0).path("value").get(1).asText());
    }

    /**
     * The time (seconds, as Prometheus stored it) of the first scrape at which the series
     * {@code selector} counts {@code count} observations, waiting for it: a classic {@code _count}
     * series or a native histogram (its raw samples, not a subquery's aligned steps).
     */
    double firstScrapeWith(String selector, long count) throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + PATIENCE.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            final JsonNode result = query(selector + "[10m]", null);
            if (result.size() > 0) {
                final JsonNode series = result.get(0);
                final boolean nativeHistogram = series.has("histograms");
                last = series.toString();
                for (JsonNode v : nativeHistogram ? series.path("histograms") : series.path("values")) {
                    final String n = nativeHistogram ? v.get(1).path("count").asText() : v.get(1).asText();
                    if (Double.parseDouble(n) == count) {
                        return v.get(0).asDouble();
                    }
                }
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no scrape with " + selector + " counting " + count + " within " + PATIENCE + "; last "
                + last.substring(Math.max(0, last.length() - 500)));
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
