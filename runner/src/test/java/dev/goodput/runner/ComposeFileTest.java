package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.goodput.sink.ClientMetrics;
import dev.goodput.sink.GoodputMetrics;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * No Docker engine runs here, so docker-compose.yml is checked as far as a file can be: its shape,
 * pinned images, health checks, dependencies, mounted files, every goodput command parsed by the
 * real CLI; and the Grafana dashboard may only use metrics the sink exposes.
 */
class ComposeFileTest {

    private static final Path ROOT = Path.of("..");

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> services() throws Exception {
        final Map<String, Object> compose = new Yaml().load(Files.readString(ROOT.resolve("docker-compose.yml")));
        return (Map<String, Map<String, Object>>) compose.get("services");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> compose() throws IOException {
        return new Yaml().load(Files.readString(ROOT.resolve("docker-compose.yml")));
    }

    private static final String GOODPUT_IMAGE = "goodput:local";

    @Test
    void everyServiceIsPinnedHealthyAndWired() throws Exception {
        final Map<String, Map<String, Object>> services = services();
        assertThat(services.keySet()).containsExactlyInAnyOrder("kafka", "schema-registry", "prices", "streams", "sink",
                "producer", "prometheus", "grafana");
        // the project's image is built once and run by every goodput service (it was built four times, under four names)
        assertThat(services.values().stream().filter(s -> s.containsKey("build")).toList()).hasSize(1)
                .allMatch(s -> ".".equals(s.get("build")) && GOODPUT_IMAGE.equals(s.get("image")));
        for (Map.Entry<String, Map<String, Object>> e : services.entrySet()) {
            final Map<String, Object> s = e.getValue();
            if (GOODPUT_IMAGE.equals(s.get("image"))) {
                assertThat(s.containsKey("build") || "never".equals(s.get("pull_policy"))).as(e.getKey()
                        + " runs the image built here, never pulls one").isTrue();
            } else {
                assertThat((String) s.get("image")).as(e.getKey()).matches("[a-z0-9./-]+:v?[0-9][A-Za-z0-9._-]*");
            }
            if (s.get("depends_on") instanceof Map<?, ?> deps) {
                assertThat(services.keySet()).as(e.getKey() + " depends on").containsAll(deps.keySet().stream().map(String::valueOf).toList());
            }
        }
        for (String healthy : List.of("kafka", "schema-registry", "sink", "prometheus", "grafana")) {
            assertThat(services.get(healthy)).as(healthy).containsKey("healthcheck");
        }
        assertThat(ROOT.resolve("Dockerfile")).exists();
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyGoodputCommandParsesAndItsFilesExist() throws Exception {
        for (Map.Entry<String, Map<String, Object>> e : services().entrySet()) {
            if (!GOODPUT_IMAGE.equals(e.getValue().get("image"))) {
                continue;
            }
            final List<String> command = (List<String>) e.getValue().get("command");
            // throws on an unknown subcommand or flag, or a bad value
            Main.commandLine().parseArgs(command.toArray(new String[0]));
            for (String arg : command) {
                if (arg.startsWith("config/")) {
                    assertThat(ROOT.resolve(arg)).as(e.getKey() + " uses " + arg).exists();
                }
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void mountedFilesExist() throws Exception {
        for (Map.Entry<String, Map<String, Object>> e : services().entrySet()) {
            final Object volumes = e.getValue().get("volumes");
            if (volumes instanceof List<?> list) {
                for (Object v : list) {
                    final String host = String.valueOf(v).split(":")[0];
                    if (!host.startsWith(".") && !host.startsWith("/")) {
                        // a named volume: declared at the top level
                        assertThat((Map<String, Object>) compose().get("volumes")).as(e.getKey() + " uses volume " + host)
                                .containsKey(host);
                        continue;
                    }
                    assertThat(ROOT.resolve(host)).as(e.getKey() + " mounts " + host).exists();
                }
            }
        }
        final String prometheus = Files.readString(ROOT.resolve("deploy/prometheus.yml"));
        assertThat(prometheus).contains("sink:9464");
    }

    @Test
    void theDashboardUsesOnlyMetricsTheSinkExposes() throws Exception {
        final JsonNode dashboard = new ObjectMapper().readTree(ROOT.resolve("deploy/grafana/dashboards/goodput.json").toFile());
        final List<String> queries = new ArrayList<>();
        dashboard.path("panels").forEach(p -> p.path("targets").forEach(t -> queries.add(t.path("expr").asText())));
        dashboard.path("templating").path("list").forEach(v -> queries.add(v.path("query").asText()));
        final Set<String> used = new TreeSet<>();
        // every metric in the dashboard carries a selector: the names before a '{'
        final Pattern metric = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{");
        for (String q : queries) {
            final Matcher m = metric.matcher(q.replaceAll("\"[^\"]*\"", "\"\""));
            while (m.find()) {
                if (!m.group(1).contains(":")) {
                    used.add(m.group(1)); // a name with a colon is the target's own (vllm:...), beside ours
                }
            }
        }
        assertThat(used).hasSizeGreaterThanOrEqualTo(8);
        final GoodputMetrics gauges = new GoodputMetrics();
        new ClientMetrics(gauges.registry(), Map.of());
        final Set<String> served = new TreeSet<>();
        for (var snapshot : gauges.registry().scrape()) {
            final String name = snapshot.getMetadata().getPrometheusName();
            if (snapshot instanceof HistogramSnapshot) {
                // the native histogram under its own name, the classic one's series beside it
                served.addAll(List.of(name, name + "_bucket", name + "_count", name + "_sum"));
            } else if (snapshot instanceof CounterSnapshot) {
                served.add(name + "_total");
            } else {
                served.add(name);
            }
        }
        assertThat(served).containsAll(used);
        // each required panel: latency percentiles from the histograms, goodput, good fraction, errors, cost, DLQ
        assertThat(used).contains("gen_ai_client_operation_time_to_first_chunk_seconds_bucket",
                "gen_ai_client_operation_time_per_output_chunk_seconds_bucket", "goodput_time_per_output_token_seconds_bucket",
                "gen_ai_client_operation_duration_seconds_bucket", "goodput_good_requests_per_second", "goodput_good_fraction",
                "goodput_window_errors", "goodput_cost_per_successful_million_tokens_usd", "goodput_refused_events_total");
        assertThat(String.join("\n", queries)).doesNotContain("quantile=");
    }

    /**
     * Every healthcheck is run as Docker runs it: a CMD-SHELL test under /bin/sh, which is Debian's
     * dash in the Debian and Ubuntu based images (and under bash too), an exec-form test as is.
     * Each must pass against a live listener and fail without one. The port in the command is
     * moved to a free one, so the test needs no fixed port. Kafka's check calls the image's own
     * script, which is not on this machine: it is left out, and said.
     */
    @Test
    @SuppressWarnings("unchecked")
    void everyHealthcheckPassesUnderDashAndBashAgainstALiveListenerAndFailsWithoutOne() throws Exception {
        final Map<String, Object> compose = new Yaml().load(Files.readString(ROOT.resolve("docker-compose.yml")));
        final Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) compose.get("services");
        final Set<String> ran = new TreeSet<>();
        final Pattern port = Pattern.compile("(localhost|127\\.0\\.0\\.1):(\\d+)");
        for (Map.Entry<String, Map<String, Object>> e : services.entrySet()) {
            final Map<String, Object> hc = (Map<String, Object>) e.getValue().get("healthcheck");
            if (hc == null) {
                continue;
            }
            final List<String> test = (List<String>) hc.get("test");
            final String command = test.get(0).equals("CMD-SHELL") ? test.get(1)
                    : String.join(" ", test.subList(1, test.size()).stream().map(a -> "'" + a.replace("'", "'\\''") + "'").toList());
            final String tool = command.split("\\s+")[0].replace("'", "");
            if (tool.startsWith("/opt/kafka/")) {
                continue; // the Kafka image's own script
            }
            final Matcher m = port.matcher(command);
            assertThat(m.find()).as(e.getKey() + ": a healthcheck names the port it checks: " + command).isTrue();
            final HttpServer live = HttpServer.create(
                    new InetSocketAddress("127.0.0.1", 0), 0);
            live.createContext("/", x -> {
                final byte[] ok = "ok".getBytes(StandardCharsets.UTF_8);
                x.sendResponseHeaders(200, ok.length);
                x.getResponseBody().write(ok);
                x.close();
            });
            live.start();
            final int free = live.getAddress().getPort();
            final String here = m.replaceAll("$1:" + free);
            try {
                for (String shell : List.of("/usr/bin/dash", "/usr/bin/bash")) {
                    assertThat(run(shell, here)).as(e.getKey() + " under " + shell + " against a live listener: " + here).isZero();
                }
            } finally {
                live.stop(0);
            }
            for (String shell : List.of("/usr/bin/dash", "/usr/bin/bash")) {
                assertThat(run(shell, here)).as(e.getKey() + " under " + shell + " with nothing listening: " + here).isNotZero();
            }
            ran.add(e.getKey());
        }
        assertThat(ran).contains("sink", "schema-registry", "prometheus", "grafana");
    }

    private static int run(String shell, String command) throws Exception {
        final Process p = new ProcessBuilder(shell, "-c", command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    /**
     * The file is valid Compose as the Compose Specification's own JSON schema says, checked by a
     * real validator (Python's jsonschema, Debian's python3-jsonschema); and the check can fail.
     */
    @Test
    void theFileValidatesAgainstTheComposeSpecificationSchema(@TempDir Path dir) throws Exception {
        final Path schema = Path.of("src/test/resources/compose-spec/compose-spec.json");
        final ObjectMapper json = new ObjectMapper();
        final Map<String, Object> compose = compose();
        assertThat(jsonschema(dir, schema, json.writeValueAsString(compose))).as("docker-compose.yml").isEqualTo("valid");
        final Map<String, Object> broken = compose();
        ((Map<String, Object>) ((Map<String, Object>) broken.get("services")).get("sink")).put("healthcheck", "curl localhost");
        assertThat(jsonschema(dir, schema, json.writeValueAsString(broken))).as("a healthcheck that is a string").isNotEqualTo("valid");
    }

    private static String jsonschema(Path dir, Path schema, String document) throws Exception {
        final Path doc = Files.writeString(dir.resolve("compose-" + System.nanoTime() + ".json"), document);
        final String script = "import json,sys\n"
                + "try:\n import jsonschema\nexcept ImportError:\n print('no jsonschema'); sys.exit(3)\n"
                + "s=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]))\n"
                // the schema names draft 2019-09 with a trailing '#', which validator_for does not match
                + "cls=jsonschema.Draft201909Validator\n"
                + "cls.check_schema(s)\n"
                + "errors=sorted(cls(s).iter_errors(d), key=str)\n"
                + "print('valid' if not errors else '; '.join(e.message for e in errors))\n";
        final Process p = new ProcessBuilder("/usr/bin/python3", "-c", script, schema.toAbsolutePath().toString(), doc.toString())
                .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        if (p.exitValue() == 3) {
            assertThat(System.getenv("CI")).as("python3-jsonschema is required in CI (apt-get install python3-jsonschema)")
                    .isNotEqualTo("true");
            Assumptions.abort("python3-jsonschema is not installed");
        }
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
