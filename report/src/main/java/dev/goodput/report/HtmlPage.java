package dev.goodput.report;

import static dev.goodput.report.Fmt.html;
import static dev.goodput.report.Fmt.ms;
import static dev.goodput.report.Fmt.num;
import static dev.goodput.report.Fmt.pct;
import static dev.goodput.report.Fmt.usd;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import dev.goodput.records.LatencySummaries;
import org.HdrHistogram.Histogram;

/**
 * The report's page: one self-contained HTML file (no network, no external script). Tables are
 * written here; the charts are drawn in the browser from a JSON block by a small inline script,
 * which marks each chart with how many points it drew.
 */
final class HtmlPage {

    /** The charts, by element id and caption, in page order. */
    static final String[][] CHARTS = {
        {"chart-frontier", "Throughput-latency frontier: output tokens/s per user against output tokens/s, across the matrix"},
        {"chart-ttft-load", "TTFT p99 against load, across the matrix"},
        {"chart-goodput-load", "Goodput against load, across the matrix"},
        {"chart-cost-concurrency", "Cost per successful 1M output tokens against concurrency"},
        {"chart-cdf-ttft", "TTFT distribution (cumulative, per scenario)"},
        {"chart-cdf-itl", "ITL distribution (cumulative, per scenario)"},
        {"chart-cdf-tpot", "TPOT distribution (cumulative, per scenario)"},
        {"chart-cdf-e2e", "E2E distribution (cumulative, per scenario)"},
    };

    private HtmlPage() {
    }

    /** What the run lost, said under the headline: a gap between measured requests and verdicts, DLQ counts, incomplete scenarios. */
    static void accounting(StringBuilder h, RunRecords run) {
        final long measured = run.measuredRequests();
        if (measured != run.verdicts().size()) {
            h.append("<p class=\"warn\" id=\"gap\">The run has ").append(measured).append(" measured requests; the results hold ")
                    .append(run.verdicts().size()).append(" verdicts (").append(Math.abs(measured - run.verdicts().size()))
                    .append(run.verdicts().size() < measured ? " missing" : " too many").append(").</p>\n");
        }
        if (run.generatorsCounted() != measured) {
            // request events that never reached the topic, or were refused: measured requests cannot hide them
            h.append("<p class=\"warn\" id=\"unpublished\">The generators' run summaries count ").append(run.generatorsCounted())
                    .append(" measured requests; ").append(measured).append(" request events of the run reached the topic and passed the"
                            + " door checks.</p>\n");
        }
        if (!run.deadLetters().isEmpty()) {
            h.append("<p class=\"warn\" id=\"dead-letters\">").append(run.deadLetters().values().stream().mapToLong(Long::longValue).sum())
                    .append(" records were refused to the DLQ during this run: ")
                    .append(html(run.deadLetters().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                            .collect(Collectors.joining(", "))))
                    .append(". Refused records are not in any figure here; see llm.dlq for each one and its reason.</p>\n");
        }
        if (!run.incompleteScenarios().isEmpty()) {
            h.append("<p class=\"warn\" id=\"incomplete\">Incomplete (their generator left no run summary): ")
                    .append(html(String.join(", ", run.incompleteScenarios()))).append(".</p>\n");
        }
    }

    static String render(Report r) {
        final StringBuilder h = new StringBuilder(64 * 1024);
        final RunRecords run = r.run();
        final ScenarioSummary t = r.total();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Goodput report: ")
                .append(html(run.runId())).append("</title>\n<style>").append(CSS).append("</style></head>\n<body>\n");
        h.append("<h1>Goodput report: ").append(html(run.runId()))
                .append(run.replayId() == null ? "" : " (replay " + html(run.replayId()) + ")").append("</h1>\n");
        LeadSection.write(h, r);
        accounting(h, run);
        if (!t.allFinal()) {
            h.append("<p class=\"warn\">Some windows had not closed when this report was made: their figures are the latest live update.</p>\n");
        }
        if (t.generatorSaturated()) {
            h.append("<p class=\"warn\">The load generator was saturated in at least one scenario (dispatch lateness p99 above its bound): see the generator table.</p>\n");
        }

        h.append("<h2>Charts</h2>\n<h3>Latency p99 over time, a panel per scenario (windows of fewer than ")
                .append(Definitions.THIN_WINDOW_REQUESTS).append(" requests left out)</h3>\n<div class=\"multiples\">\n");
        for (String[] p : PageCharts.latencyPanels(r)) {
            h.append("<figure><figcaption>").append(html(p[1])).append("</figcaption><svg class=\"chart small\" id=\"").append(p[0])
                    .append("\" role=\"img\" aria-label=\"latency p99 over time, ").append(html(p[1])).append("\"></svg></figure>\n");
        }
        h.append("</div>\n<div class=\"charts\">\n");
        for (String[] c : CHARTS) {
            h.append("<figure><figcaption>").append(c[1]).append("</figcaption><svg class=\"chart\" id=\"").append(c[0])
                    .append("\" role=\"img\" aria-label=\"").append(c[1]).append("\"></svg></figure>\n");
        }
        h.append("</div>\n");

        scenarios(h, r);
        LengthsTable.write(h, r);
        CacheTable.write(h, r);
        RetailTable.write(h, r);
        percentiles(h, r);
        validity(h, r);
        failures(h, r);
        quality(h, r);
        windows(h, run);
        generator(h, run);
        EngineTable.section(h, EngineTable.rows(run));
        EngineTimeline.section(h, EngineTimeline.spans(run));
        AssumptionsSection.write(h, r);
        provenance(h, r);

        h.append("<script type=\"application/json\" id=\"goodput-data\">").append(json(PageCharts.of(r)).replace("</", "<\\/"))
                .append("</script>\n<script>").append(script()).append("</script>\n</body></html>\n");
        return h.toString();
    }

    private static void scenarios(StringBuilder h, Report r) {
        h.append("<h2>Scenarios</h2>\n<table id=\"scenarios\"><thead><tr><th>scenario</th><th>load (req/s or streams)</th>"
                + "<th>measured (s)</th><th>requests</th><th>ok</th><th>errors</th><th>timeouts</th><th>good</th><th>good (%)</th>"
                + "<th>goodput (req/s)</th><th>request throughput (req/s)</th><th>output tokens (tok/s)</th>"
                + "<th>total tokens (tok/s)</th><th>in flight (requests)</th><th>$ / successful 1M output tokens</th></tr></thead><tbody>\n");
        final List<ScenarioSummary> all = new ArrayList<>(r.scenarios());
        all.add(r.total());
        for (ScenarioSummary s : all) {
            h.append("<tr data-scenario=\"").append(html(s.scenarioId())).append("\"><td>").append(html(s.scenarioId()))
                    .append("</td><td>").append(s == r.total() ? "" : num(s.load()) + (s.closedLoop() ? " streams" : " req/s"))
                    .append("</td>");
            cell(h, "measured_s", num(s.measuredSeconds()));
            cell(h, "requests", s.requests());
            cell(h, "ok", s.ok());
            cell(h, "errors", s.errors());
            cell(h, "timeouts", s.timeouts());
            cell(h, "good", s.good());
            cell(h, "good_fraction", s.requests() == 0 ? "n/a" : pct(s.goodFraction())); // no request: no share, not 0 %
            cell(h, "goodput_rps", num(s.goodputRps()));
            cell(h, "request_rps", num(Definitions.perSecond(s.ok(), s.measuredSeconds())));
            cell(h, "tokens_per_s", num(s.tokensPerS()));
            cell(h, "total_tokens_per_s", num(Definitions.perSecond(s.inputTokens() + s.tokensOk(), s.measuredSeconds())));
            cell(h, "in_flight", num(s.inFlight()));
            cell(h, "cost", usd(s.costPerSuccessfulM()));
            h.append("</tr>\n");
        }
        h.append("</tbody></table>\n<p class=\"note\">Goodput: requests that met every latency objective and the quality floor, per second of "
                + "measured time (after warm-up). Request throughput: ok requests per measured second (vLLM's). Total tokens: input and "
                + "output tokens of the ok requests per measured second. In flight: mean requests in flight by Little's law (ok "
                + "requests/s x mean E2E).</p>\n");
    }

    /** Objectives as a reader writes them: "TTFT <= 500 ms, TPOT <= 50 ms, E2E <= 5000 ms (each inclusive)". */
    static String objectives(Contract.Objectives o) {
        final List<String> parts = new ArrayList<>();
        o.ttftUs().ifPresent(v -> parts.add("TTFT \u2264 " + wholeMs(v) + " ms"));
        o.tpotUs().ifPresent(v -> parts.add("TPOT \u2264 " + wholeMs(v) + " ms"));
        o.e2eUs().ifPresent(v -> parts.add("E2E \u2264 " + wholeMs(v) + " ms"));
        return parts.isEmpty() ? "none (every ok request meets them)" : String.join(", ", parts) + " (each inclusive)";
    }

    /** Milliseconds as written in a contract: 500, or 12.5 when the objective has a fraction. */
    private static String wholeMs(long us) {
        return us % 1000 == 0 ? Long.toString(us / 1000) : BigDecimal.valueOf(us, 3).stripTrailingZeros().toPlainString();
    }

    private static void percentiles(StringBuilder h, Report r) {
        h.append("<h2>Latency percentiles</h2>\n<table id=\"percentiles\"><thead><tr><th>scenario</th><th>metric</th>"
                + "<th>samples</th><th>min (ms)</th><th>p50 (ms)</th><th>p90 (ms)</th><th>p95 (ms)</th><th>p99 (ms)</th>"
                + "<th>p99.9 (ms)</th><th>max (ms)</th><th>mean (ms)</th><th>std (ms)</th></tr></thead><tbody>\n");
        final List<ScenarioSummary> all = new ArrayList<>(r.scenarios());
        all.add(r.total());
        for (ScenarioSummary s : all) {
            for (String m : ScenarioSummary.METRICS) {
                final LatencySummary p = LatencySummaries.of(s.latency().get(m));
                h.append("<tr data-scenario=\"").append(html(s.scenarioId())).append("\" data-metric=\"").append(m).append("\"><td>")
                        .append(html(s.scenarioId())).append("</td><td>").append(m.toUpperCase(Locale.ROOT)).append("</td>");
                cell(h, "count", p.getCount());
                final boolean any = p.getCount() > 0;
                final Histogram hist = s.latency().get(m);
                cell(h, "min", any ? ms(hist.getMinValue()) : "n/a");
                cell(h, "p50", any ? ms(p.getP50Us()) : "n/a");
                cell(h, "p90", any ? ms(p.getP90Us()) : "n/a");
                cell(h, "p95", any ? ms(p.getP95Us()) : "n/a");
                cell(h, "p99", any ? ms(p.getP99Us()) : "n/a");
                cell(h, "p999", any ? ms(p.getP999Us()) : "n/a");
                cell(h, "max", any ? ms(p.getMaxUs()) : "n/a");
                cell(h, "mean", any ? num(p.getMeanUs() / 1000) : "n/a");
                cell(h, "std", any ? num(hist.getStdDeviation() / 1000) : "n/a");
                h.append("</tr>\n");
            }
        }
        h.append("</tbody></table>\n<p class=\"note\">Merged HdrHistograms of the scenario's windows (3 significant digits); percentiles "
                + "are never averaged. ITL is every gap between consecutive content chunks; TPOT is per request (E2E - TTFT) / (tokens - 1).</p>\n");
    }

    private static void validity(StringBuilder h, Report r) {
        h.append("<h2>Statistical validity of the p99</h2>\n<table id=\"validity\"><thead><tr><th>scenario</th><th>metric</th>"
                + "<th>samples</th><th>p99 (nearest rank, ms)</th><th>samples needed</th><th>p99 supported</th>"
                + "<th>early-stopping p99 (ms)</th><th>slowest set aside</th></tr></thead><tbody>\n");
        final List<ScenarioSummary> all = new ArrayList<>(r.scenarios());
        all.add(r.total());
        for (ScenarioSummary s : all) {
            for (var e : s.earlyStopping().entrySet()) {
                final ScenarioSummary.Tail t = e.getValue();
                h.append("<tr data-scenario=\"").append(html(s.scenarioId())).append("\" data-metric=\"").append(e.getKey())
                        .append("\" class=\"").append(t.verdict().supported() ? "ok" : "short").append("\"><td>")
                        .append(html(s.scenarioId())).append("</td><td>").append(e.getKey().toUpperCase(Locale.ROOT)).append("</td>");
                cell(h, "samples", t.samples());
                cell(h, "p99", ms(t.nearestRankP99Us()));
                cell(h, "min_samples", t.verdict().minSamples());
                cell(h, "supported", t.verdict().supported() ? "yes" : "no");
                cell(h, "estimate", ms(t.estimateUs()));
                cell(h, "discarded", t.verdict().supported() ? String.valueOf(t.verdict().discard()) : "n/a");
                h.append("</tr>\n");
            }
        }
        h.append("</tbody></table>\n<p class=\"note\">MLPerf LoadGen's early-stopping rule at the 99th percentile with 99% confidence, on the "
                + "exact per-request values of the ok requests: a p99 is supported once there are enough samples (662 at the least); the "
                + "early-stopping p99 is then an upper bound that holds at that confidence.</p>\n");
    }

    private static void failures(StringBuilder h, Report r) {
        h.append("<h2>Failures by class</h2>\n<table id=\"failures\"><thead><tr><th>scenario</th><th>class</th><th>requests</th></tr></thead><tbody>\n");
        boolean any = false;
        for (ScenarioSummary s : r.scenarios()) {
            for (var e : s.errorsByClass().entrySet()) {
                any = true;
                h.append("<tr data-scenario=\"").append(html(s.scenarioId())).append("\" data-class=\"").append(html(e.getKey()))
                        .append("\"><td>").append(html(s.scenarioId())).append("</td><td>").append(html(e.getKey())).append("</td>");
                cell(h, "requests", e.getValue());
                h.append("</tr>\n");
            }
        }
        if (!any) {
            h.append("<tr><td colspan=\"3\">no failed request</td></tr>\n");
        }
        h.append("</tbody></table>\n");
    }

    private static void quality(StringBuilder h, Report r) {
        h.append("<h2>Quality</h2>\n<p>Metric <code>").append(html(r.contract().quality().metric())).append("</code> against the corpus's "
                + "expected answers, pass at score &ge; ").append(r.contract().quality().floor()).append(".</p>\n");
        h.append("<table id=\"quality\"><thead><tr><th>scenario</th><th>ok requests</th><th>quality pass</th><th>pass (%)</th></tr></thead><tbody>\n");
        final List<ScenarioSummary> all = new ArrayList<>(r.scenarios());
        all.add(r.total());
        for (ScenarioSummary s : all) {
            h.append("<tr data-scenario=\"").append(html(s.scenarioId())).append("\"><td>").append(html(s.scenarioId())).append("</td>");
            cell(h, "ok", s.ok());
            cell(h, "quality_pass", s.qualityPass());
            cell(h, "quality_fraction", s.ok() == 0 ? "n/a" : pct(Definitions.goodFraction(s.qualityPass(), s.ok())));
            h.append("</tr>\n");
        }
        h.append("</tbody></table>\n");
    }

    private static void windows(StringBuilder h, RunRecords run) {
        h.append("<h2>Windows</h2>\n<table id=\"windows\"><thead><tr><th>scenario</th><th>window start (UTC)</th><th>final</th>"
                + "<th>requests</th><th title=\"fewer than " + Definitions.THIN_WINDOW_REQUESTS + " requests: its p99 is noise, its"
                + " cost not shown\">thin</th><th>good</th><th>TTFT p50 (ms)</th><th>TTFT p99 (ms)</th><th>ITL p99 (ms)</th>"
                + "<th>TPOT p99 (ms)</th><th>E2E p99 (ms)</th>"
                + "</tr></thead><tbody>\n");
        for (WindowStats w : run.windows()) {
            h.append("<tr data-scenario=\"").append(html(w.getScenarioId())).append("\" data-window=\"")
                    .append(Micros.of(w.getWindowStartUs())).append("\"><td>").append(html(w.getScenarioId())).append("</td><td>")
                    .append(w.getWindowStartUs()).append("</td><td>").append(w.getIsFinal() ? "yes" : "live").append("</td>");
            cell(h, "requests", w.getRequestsTotal());
            cell(h, "thin", Definitions.thinWindow(w.getRequestsTotal()) ? "thin" : "");
            cell(h, "good", w.getGoodRequests());
            cell(h, "ttft_p50", w.getTtft().getCount() > 0 ? ms(w.getTtft().getP50Us()) : "n/a");
            cell(h, "ttft_p99", w.getTtft().getCount() > 0 ? ms(w.getTtft().getP99Us()) : "n/a");
            cell(h, "itl_p99", w.getItl().getCount() > 0 ? ms(w.getItl().getP99Us()) : "n/a");
            cell(h, "tpot_p99", w.getTpot().getCount() > 0 ? ms(w.getTpot().getP99Us()) : "n/a");
            cell(h, "e2e_p99", w.getE2e().getCount() > 0 ? ms(w.getE2e().getP99Us()) : "n/a");
            h.append("</tr>\n");
        }
        h.append("</tbody></table>\n");
    }

    private static void generator(StringBuilder h, RunRecords run) {
        h.append("<h2>Load generator</h2>\n<table id=\"generator\"><thead><tr><th>scenario</th><th>generator</th><th>target</th>"
                + "<th>requests</th><th>warm-up requests</th><th>lateness p99 (ms)</th><th>saturated</th><th>cut short</th><th>CPU (s)</th><th>wall (s)</th>"
                + "</tr></thead><tbody>\n");
        for (RunSummary s : run.runs()) {
            h.append("<tr data-scenario=\"").append(html(s.getScenarioId())).append("\"><td>").append(html(s.getScenarioId()))
                    .append("</td><td>").append(html(s.getGeneratorId())).append("</td><td>").append(html(s.getTargetId())).append("</td>");
            cell(h, "requests", s.getRequests());
            cell(h, "warmup", s.getWarmupRequests());
            cell(h, "lateness_p99", ms(s.getLatenessP99Us()));
            cell(h, "saturated", s.getGeneratorSaturated() ? "yes" : "no");
            cell(h, "cut_short", Boolean.TRUE.equals(s.getStoppedEarly()) ? "yes: the run ended before its planned end" : "no");
            cell(h, "cpu_s", num(s.getGeneratorCpuS()));
            cell(h, "wall_s", num(s.getWallS()));
            h.append("</tr>\n");
        }
        h.append("</tbody></table>\n");
    }

    private static void provenance(StringBuilder h, Report r) {
        final Provenance p = r.provenance();
        h.append("<h2>Provenance</h2>\n<table id=\"provenance\"><tbody>\n");
        row(h, "run id", r.run().runId());
        row(h, "contract id", r.contract().id());
        row(h, "corpus sha256", r.contract().corpus().sha256());
        row(h, "model", r.contract().modelName() + " (" + r.contract().modelRevision() + ")");
        row(h, "target server", p.targetVersion() == null ? "did not report a version" : p.targetVersion());
        if (!p.scenariosNotRun().isEmpty()) {
            row(h, "scenarios never run", String.join(", ", p.scenariosNotRun()) + " (the run ended before they started)");
        }
        row(h, "goodput", p.goodputVersion());
        row(h, "java", p.javaVersion() + " (" + p.javaVm() + ")");
        row(h, "kafka clients", p.kafkaClientVersion());
        row(h, "kafka cluster", p.kafkaBroker() == null ? "did not say" : p.kafkaBroker());
        row(h, "os", p.os());
        row(h, "created", p.createdAt());
        h.append("</tbody></table>\n<h3>Commands</h3>\n");
        for (var e : p.commands().entrySet()) {
            h.append("<p>").append(html(e.getKey())).append(":</p><pre>").append(html(e.getValue())).append("</pre>\n");
        }
        h.append("<p class=\"note\">Files in this folder: contract.yaml, requests.csv / requests.jsonl (every request, warm-up marked), "
                + "scenarios.csv, windows.csv, failures.csv, cost.csv, generator.csv, engine.csv, engine-timeline.csv, assumptions.json, summary.json; manifest.json "
                + "holds the versions, the commands and each file's sha256.</p>\n");
    }

    private static void row(StringBuilder h, String k, Object v) {
        h.append("<tr><th>").append(html(k)).append("</th><td>").append(html(v)).append("</td></tr>\n");
    }

    static void cell(StringBuilder h, String key, Object v) {
        h.append("<td data-k=\"").append(key).append("\">").append(html(v)).append("</td>");
    }

    private static String json(Object o) {
        try {
            return new ObjectMapper().writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String script() {
        try (InputStream in = HtmlPage.class.getResourceAsStream("charts.js")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final String CSS = """
            body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1200px;color:#222;padding:0 1rem}
            h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
            .lead{font-size:1.1rem}.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.5rem}.note{color:#555;font-size:.9rem}
            table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:right}
            th:first-child,td:first-child{text-align:left}thead th{background:#f5f5f5}tr.short td{color:#a33}
            .charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(540px,1fr));gap:1rem}
            .multiples{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:.5rem;margin-bottom:1rem}
            figure{margin:0;border:1px solid #eee;padding:.5rem}figcaption{font-weight:600;margin-bottom:.3rem}
            svg.chart{width:100%;height:auto}svg .axes line{stroke:#999}svg .axes line.grid{stroke:#eee}
            svg text{font-size:11px;fill:#444}svg text.title{font-size:12px;fill:#222}svg text.empty{font-size:16px;fill:#999}
            pre{background:#f7f7f7;padding:.5rem;overflow-x:auto}
            """;
}
