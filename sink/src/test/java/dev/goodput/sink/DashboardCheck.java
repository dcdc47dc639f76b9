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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import org.junit.jupiter.api.Assumptions;

/**
 * The shipped dashboard as Grafana draws it: every panel's query is run on a real Prometheus that
 * scraped a real sink, and every legend is rendered over each returned series by Grafana's own
 * {@code renderLegendFormat} (npm {@code @grafana/data}, which {@code .ci/run} installs into
 * {@code target/grafana}). A legend that names a label the series do not carry (Grafana then prints
 * the label's name itself: "scenario p99" on every line) fails, and so does a panel whose unit is not
 * what its query measures.
 */
final class DashboardCheck {

    static final Path DASHBOARD = Path.of("../deploy/grafana/dashboards/goodput.json");
    static final Path GRAFANA_DATA = Path.of("../target/grafana/node_modules");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([^}\\s]+)\\s*}}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private DashboardCheck() {
    }

    /** What a panel's query measures, read from its expression; the unit Grafana must show it in. */
    static Set<String> unitsFor(String expr) {
        if (expr.contains("histogram_quantile") || expr.startsWith("time() -")) {
            return Set.of("s");
        }
        if (expr.contains("_usd")) {
            return Set.of("currencyUSD");
        }
        if (expr.contains("fraction") || expr.contains("_ratio")) {
            return Set.of("percentunit");
        }
        if (expr.contains("rate(")) {
            return Set.of("reqps", "ops");
        }
        return Set.of("short", "none");
    }

    /** The client's panels that must draw: latency, goodput, cost, requests, freshness. */
    private static final List<String> MUST_DRAW = List.of("TTFT (from the intended send time)", "End-to-end latency", "Goodput",
            "Good fraction", "Cost per successful 1M tokens", "Requests per second by status",
            "Freshness: seconds since the latest final window");

    /**
     * Runs every panel's queries on Prometheus at {@code port} (again until the client's panels draw:
     * a rate needs two scrapes; the bound only keeps a broken build from hanging); returns how many
     * legends were rendered.
     */
    static int check(int port) throws Exception {
        if (!Files.isDirectory(GRAFANA_DATA.resolve("@grafana/data"))) {
            assertThat(System.getenv("CI")).as("@grafana/data is required in CI (.ci/run installs it into target/grafana)")
                    .isNotEqualTo("true");
            Assumptions.abort("npm's @grafana/data is not installed in target/grafana");
        }
        final JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            final ArrayNode items = JSON.createArrayNode();
            final List<String> where = new ArrayList<>();
            final Set<String> panelsWithData = new TreeSet<>();
            final List<String> asked = new ArrayList<>();
            for (JsonNode panel : dashboard.path("panels")) {
                final String title = panel.path("title").asText();
                final String unit = panel.path("fieldConfig").path("defaults").path("unit").asText("");
                for (JsonNode target : panel.path("targets")) {
                    final String expr = target.path("expr").asText();
                    assertThat(unitsFor(expr)).as("unit of panel '%s' for %s", title, expr).contains(unit);
                    final String legend = target.path("legendFormat").asText("");
                    final String promql = expr.replace("$__rate_interval", "1m").replace("$scenario", ".*")
                            .replace("$model", ".*").replace("$contract", ".*");
                    final JsonNode result = query(port, promql);
                    asked.add(title + ": " + result.size() + " series for " + promql);
                    for (JsonNode series : result) {
                        panelsWithData.add(title);
                        final JsonNode labels = series.path("metric");
                        final Matcher m = PLACEHOLDER.matcher(legend);
                        while (m.find()) {
                            assertThat(labels.has(m.group(1))).as("panel '%s': legend %s names label %s, which its series %s"
                                    + " do not carry", title, legend, m.group(1), labels).isTrue();
                        }
                        items.addObject().put("legend", legend).set("labels", labels);
                        where.add(title + ": " + legend + " over " + labels);
                    }
                }
            }
            if (!panelsWithData.containsAll(MUST_DRAW) && System.nanoTime() < deadline) {
                Thread.sleep(1000);
                continue;
            }
            assertThat(panelsWithData).as(String.join("\n", asked)).containsAll(MUST_DRAW);
            final List<String> rendered = render(items);
            for (int i = 0; i < rendered.size(); i++) {
                final String legend = items.get(i).path("legend").asText();
                assertThat(rendered.get(i)).as(where.get(i)).doesNotContain("{{");
                if (!legend.isEmpty()) {
                    // what Grafana prints is the legend with each label's value, and nothing of a label's name left
                    String expected = legend;
                    final Matcher m = PLACEHOLDER.matcher(legend);
                    while (m.find()) {
                        expected = expected.replace(m.group(), items.get(i).path("labels").path(m.group(1)).asText());
                    }
                    assertThat(rendered.get(i)).as(where.get(i)).isEqualTo(expected);
                }
            }
            return rendered.size();
        }
    }

    /** Grafana's renderLegendFormat over each legend and label set, in node. */
    private static List<String> render(ArrayNode items) throws IOException, InterruptedException {
        final ProcessBuilder pb = new ProcessBuilder("node", "-e", "const {renderLegendFormat} = require('@grafana/data');"
                + "let s = ''; process.stdin.on('data', d => s += d); process.stdin.on('end', () => {"
                + " const items = JSON.parse(s);"
                + " console.log(JSON.stringify(items.map(i => renderLegendFormat(i.legend, i.labels)))); });")
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("NODE_PATH", GRAFANA_DATA.toAbsolutePath().toString());
        final Process node = pb.start();
        try (var in = node.getOutputStream()) {
            in.write(JSON.writeValueAsBytes(items));
        }
        final String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(node.exitValue()).as(out).isZero();
        final List<String> rendered = new ArrayList<>();
        JSON.readTree(out).forEach(n -> rendered.add(n.asText()));
        return rendered;
    }

    /** The series a query returns now. */
    private static JsonNode query(int port, String promql) throws IOException, InterruptedException {
        final HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
        final JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("status").asText()).as(promql + ": " + r.body()).isEqualTo("success");
        return body.path("data").path("result");
    }
}
