package dev.goodput.report;

import static dev.goodput.report.Fmt.num;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import org.HdrHistogram.Histogram;

/**
 * The data the page's charts are drawn from: each chart's axes and its series of points, built from
 * the run's windows and scenario summaries (the page's inline script draws them).
 */
final class PageCharts {

    /** The percentiles a distribution chart plots for each scenario. */
    static final double[] CDF_PERCENTILES = {0, 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.9, 100};

    private PageCharts() {
    }

    /** The data the page's script draws. */
    static Map<String, Object> of(Report r) {
        final Map<String, Object> charts = new LinkedHashMap<>();
        final long start = r.run().runs().stream().mapToLong(x -> Micros.of(x.getStartedUs())).min().orElse(0);
        // small multiples: a panel per scenario with its three p99 lines, so no chart holds more lines than a legend shows;
        // thin windows (a scenario's first or last seconds) are left out, their p99 of a handful of requests being noise
        final List<String[]> panels = latencyPanels(r);
        for (String[] panel : panels) {
            final Map<String, List<Map<String, Object>>> overTime = new LinkedHashMap<>();
            for (WindowStats w : r.run().windows()) {
                if (!w.getScenarioId().equals(panel[1]) || w.getRequestsOk() == 0 || Definitions.thinWindow(w.getRequestsTotal())) {
                    continue;
                }
                final double x = (Micros.of(w.getWindowEndUs()) - start) / 1e6;
                final String id = w.getScenarioId();
                overTime.computeIfAbsent("TTFT p99", k -> new ArrayList<>()).add(point(x, w.getTtft().getP99Us() / 1000.0, id));
                if (w.getItl().getCount() > 0) {
                    overTime.computeIfAbsent("ITL p99", k -> new ArrayList<>()).add(point(x, w.getItl().getP99Us() / 1000.0, id));
                }
                overTime.computeIfAbsent("E2E p99", k -> new ArrayList<>()).add(point(x, w.getE2e().getP99Us() / 1000.0, id));
            }
            final Map<String, Object> latency = new LinkedHashMap<>(chart("seconds since the run started (window end)",
                    "ms (log scale when they span a decade)", overTime));
            latency.put("log", true);
            charts.put(panel[0], latency);
        }
        final boolean closed = !r.scenarios().isEmpty() && r.scenarios().get(0).closedLoop();
        final String load = closed ? "concurrent streams (closed loop)" : "offered load, requests/s (open loop)";
        final Map<String, List<Map<String, Object>>> ttft = new LinkedHashMap<>();
        final Map<String, List<Map<String, Object>>> goodput = new LinkedHashMap<>();
        final Map<String, List<Map<String, Object>>> cost = new LinkedHashMap<>();
        for (ScenarioSummary s : r.scenarios()) {
            if (s.ok() > 0) {
                ttft.computeIfAbsent(s.family(), k -> new ArrayList<>())
                        .add(point(s.load(), s.latency().get("ttft").getValueAtPercentile(99) / 1000.0, s.scenarioId()));
            }
            goodput.computeIfAbsent(s.family(), k -> new ArrayList<>()).add(point(s.load(), s.goodputRps(), s.scenarioId()));
            if (s.costPerSuccessfulM() != null) {
                cost.computeIfAbsent(s.family(), k -> new ArrayList<>()).add(point(s.inFlight(), s.costPerSuccessfulM(), s.scenarioId()));
            }
        }
        charts.put("chart-ttft-load", chart(load, "TTFT p99, milliseconds", ttft));
        charts.put("chart-goodput-load", chart(load, "goodput, good requests/s", goodput));
        charts.put("chart-cost-concurrency", chart("mean requests in flight (Little's law)", "USD per successful 1M output tokens", cost));
        charts.put("chart-frontier", frontier(r.scenarios()));
        for (String m : List.of("ttft", "itl", "tpot", "e2e")) {
            final Map<String, List<Map<String, Object>>> cdf = new LinkedHashMap<>();
            for (ScenarioSummary s : r.scenarios()) {
                final Histogram h = s.latency().get(m);
                if (h != null && h.getTotalCount() > 0) {
                    final List<Map<String, Object>> pts = new ArrayList<>();
                    for (double q : CDF_PERCENTILES) {
                        pts.add(point(h.getValueAtPercentile(q) / 1000.0, q, s.scenarioId() + " p" + Fmt.num(q)));
                    }
                    cdf.put(s.scenarioId(), pts);
                }
            }
            final Map<String, Object> chart = new LinkedHashMap<>(chart(m.toUpperCase(Locale.ROOT) + ", milliseconds",
                    "percent of samples at or below", cdf));
            chart.put("yMax", 100);
            charts.put("chart-cdf-" + m, chart);
        }
        return Map.of("charts", charts);
    }

    /**
     * The latency-over-time panels, one per scenario in the order the run's windows name them: its
     * chart id and its scenario.
     */
    static List<String[]> latencyPanels(Report r) {
        final List<String> ids = r.run().windows().stream().map(WindowStats::getScenarioId).distinct().toList();
        final List<String[]> panels = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            panels.add(new String[] {"chart-latency-" + (i + 1), ids.get(i)});
        }
        return panels;
    }

    /**
     * Each scenario's output tokens/s (x) against its output tokens/s per user (y: 1 / TPOT p50, the
     * median request's decode speed), one line per scenario family; and the frontier, the scenarios
     * no other beats on both.
     */
    static Map<String, Object> frontier(List<ScenarioSummary> scenarios) {
        final Map<String, List<Map<String, Object>>> series = new LinkedHashMap<>();
        final List<double[]> all = new ArrayList<>();
        final List<String> labels = new ArrayList<>();
        for (ScenarioSummary s : scenarios) {
            final Histogram tpot = s.latency().get("tpot");
            if (tpot == null || tpot.getTotalCount() == 0 || tpot.getValueAtPercentile(50) <= 0) {
                continue;
            }
            final double perUser = 1e6 / tpot.getValueAtPercentile(50);
            series.computeIfAbsent(s.family(), k -> new ArrayList<>()).add(point(s.tokensPerS(), perUser, s.scenarioId()));
            all.add(new double[] {s.tokensPerS(), perUser});
            labels.add(s.scenarioId());
        }
        final List<Map<String, Object>> front = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            boolean beaten = false;
            for (int j = 0; j < all.size() && !beaten; j++) {
                beaten = j != i && all.get(j)[0] >= all.get(i)[0] && all.get(j)[1] >= all.get(i)[1]
                        && (all.get(j)[0] > all.get(i)[0] || all.get(j)[1] > all.get(i)[1]);
            }
            if (!beaten) {
                front.add(point(all.get(i)[0], all.get(i)[1], labels.get(i)));
            }
        }
        if (!front.isEmpty() && series.size() > 1) {
            series.put("frontier", front);
        }
        return chart("output tokens/s (all requests)", "output tokens/s per user (1 / TPOT p50)", series);
    }

    private static Map<String, Object> chart(String x, String y, Map<String, List<Map<String, Object>>> series) {
        final List<Map<String, Object>> list = new ArrayList<>();
        series.forEach((name, points) -> list.add(Map.of("name", name, "points", points)));
        return Map.of("x", x, "y", y, "series", list);
    }

    private static Map<String, Object> point(double x, double y, String label) {
        return Map.of("x", x, "y", y, "label", label);
    }

}
