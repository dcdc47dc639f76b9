package dev.goodput.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.report.peers.PeerResult;

/**
 * Two report bundles side by side: the contracts' differences field by field (with a warning
 * for each one that makes the comparison unfair), then goodput, cost per successful 1M, quality
 * and latency percentiles for the whole run and for every scenario both ran.
 */
public record Comparison(String nameA, String nameB, List<ContractDiff.Difference> differences, List<Row> rows, List<String> notes) {

    /** One figure of one scenario (or "all scenarios") in both runs. */
    public record Row(String scenario, String figure, Double a, Double b) {
        /** b relative to a, as a fraction (+0.10 = 10% higher); null when undefined. */
        public Double change() {
            return a == null || b == null || a == 0 ? null : (b - a) / a;
        }
    }

    /** The figures compared, as (label, path in a scenario's summary.json entry, scale to display units). */
    static final List<String[]> FIGURES = List.of(
            new String[] {"goodput req/s", "goodput_rps", "1"},
            new String[] {"good %", "good_fraction", "100"},
            new String[] {"$ / successful 1M", "cost_per_successful_m_usd", "1"},
            new String[] {"quality pass %", "quality_fraction", "100"},
            new String[] {"output tok/s", "output_tokens_per_s", "1"},
            new String[] {"requests", "requests", "1"},
            new String[] {"TTFT p50 ms", "latency.ttft.p50_us", "0.001"},
            new String[] {"TTFT p99 ms", "latency.ttft.p99_us", "0.001"},
            new String[] {"ITL p99 ms", "latency.itl.p99_us", "0.001"},
            new String[] {"TPOT p50 ms", "latency.tpot.p50_us", "0.001"},
            new String[] {"TPOT p99 ms", "latency.tpot.p99_us", "0.001"},
            new String[] {"E2E p99 ms", "latency.e2e.p99_us", "0.001"});

    /** Compares two bundle folders (each holding summary.json). */
    public static Comparison of(Path a, Path b) {
        return of(a, b, null);
    }

    /** One side: a bundle's summary.json, or a peer's result file read into that shape. */
    private record Side(String name, JsonNode summary, Map<String, Object> contract, PeerResult peer) {
    }

    /**
     * Compares two results, each a report bundle folder (or its summary.json) or a peer's result
     * file (vLLM {@code --save-result} JSON, AIPerf {@code profile_export_aiperf.json}, GuideLLM
     * {@code benchmarks.json}); {@code scenario}, when set, compares that scenario of each side
     * that has it instead of its whole run.
     */
    public static Comparison of(Path a, Path b, String scenario) {
        final Side sa = side(a, scenario);
        final Side sb = side(b, scenario);
        final List<String> notes = new ArrayList<>();
        final List<ContractDiff.Difference> differences = new ArrayList<>();
        if (sa.peer() == null && sb.peer() == null) {
            differences.addAll(ContractDiff.of(sa.contract(), sb.contract()));
            differences.addAll(judging(sa.summary().path("judged_by"), sb.summary().path("judged_by")));
        } else {
            notes.add("contracts: " + (sa.peer() != null && sb.peer() != null ? "neither side" : sa.peer() != null ? "A" : "B")
                    + " records one, so the workloads cannot be checked field by field: compare runs of the same model, lengths and load");
        }
        for (Side s : List.of(sa, sb)) {
            if (s.peer() != null) {
                final String who = s == sa ? "A" : "B";
                notes.add(who + " is " + s.peer().kind().label() + ": " + s.peer().caveat()
                        + " (goodput replay --conventions recomputes a Goodput run under the tools' definitions)");
                notes.add(who + " cannot give: " + String.join(", ", s.peer().missing()));
            }
        }
        final int scenariosA = sa.summary().path("scenarios").size();
        final int scenariosB = sb.summary().path("scenarios").size();
        if (scenario == null && (sa.peer() != null || sb.peer() != null) && (scenariosA > 1 || scenariosB > 1)) {
            notes.add("one side holds " + Math.max(scenariosA, scenariosB) + " scenarios and the other is one run: pass --scenario "
                    + "to compare that run with one scenario");
        }
        final List<Row> rows = new ArrayList<>();
        rows(rows, scenario != null ? scenario : "all scenarios", sa.summary().path("total"), sb.summary().path("total"));
        if (scenario == null) {
            final Map<String, JsonNode> byId = new LinkedHashMap<>();
            sb.summary().path("scenarios").forEach(s -> byId.put(s.path("scenario_id").asText(), s));
            for (JsonNode s : sa.summary().path("scenarios")) {
                final JsonNode other = byId.get(s.path("scenario_id").asText());
                if (other != null && !(scenariosA == 1 && scenariosB == 1)) {
                    rows(rows, s.path("scenario_id").asText(), s, other);
                }
            }
        }
        return new Comparison(sa.name(), sb.name(), differences, rows, notes);
    }

    /**
     * The judging of two bundles, field by field: results judged by other objectives, another quality
     * floor, window or grace are not comparable (a bundle made before judged_by was recorded has none,
     * and is said to have none).
     */
    static List<ContractDiff.Difference> judging(JsonNode a, JsonNode b) {
        final List<ContractDiff.Difference> out = new ArrayList<>();
        for (String f : List.of("objectives", "quality_floor", "window_s", "grace_s")) {
            final String va = a.path(f).isMissingNode() || a.path(f).isNull() ? "not recorded" : a.path(f).asText();
            final String vb = b.path(f).isMissingNode() || b.path(f).isNull() ? "not recorded" : b.path(f).asText();
            if (!va.equals(vb)) {
                out.add(new ContractDiff.Difference("judged_by." + f, va, vb, true,
                        "the results were judged differently: a good request on one side is not one on the other"));
            }
        }
        return out;
    }

    private static Side side(Path p, String scenario) {
        final Path summaryFile = Files.isDirectory(p) ? p.resolve("summary.json") : p;
        if (Files.isDirectory(p) || p.getFileName().toString().equals("summary.json")) {
            final JsonNode s = pick(read(summaryFile, p), scenario, p);
            final Map<String, Object> contract = new ObjectMapper().convertValue(s.path("contract"), new TypeReference<>() { });
            return new Side(name(s, Files.isDirectory(p) ? p : p.getParent() == null ? p : p.getParent()), s, contract, null);
        }
        if (!Files.isRegularFile(p)) {
            throw new IllegalArgumentException(p + " does not exist: give a report bundle folder or a result file of vLLM, AIPerf, GuideLLM or inference-perf");
        }
        final PeerResult peer = PeerResult.read(p);
        if (peer == null) {
            throw new IllegalArgumentException(p + " is neither a report bundle's summary.json nor a vLLM --save-result JSON, an AIPerf "
                    + "profile_export_aiperf.json, a GuideLLM benchmarks.json or an inference-perf summary_lifecycle_metrics.json");
        }
        return new Side(peer.summary().path("run_id").asText() + " (" + peer.kind().label() + ")", pick(peer.summary(), scenario, p),
                null, peer);
    }

    /** The side's summary with {@code scenario}'s figures as its total, when a scenario is named and the side has it. */
    private static JsonNode pick(JsonNode summary, String scenario, Path p) {
        if (scenario == null) {
            return summary;
        }
        final List<String> ids = new ArrayList<>();
        for (JsonNode s : summary.path("scenarios")) {
            ids.add(s.path("scenario_id").asText());
            if (s.path("scenario_id").asText().equals(scenario)) {
                final com.fasterxml.jackson.databind.node.ObjectNode copy = summary.deepCopy();
                copy.set("total", s);
                return copy;
            }
        }
        if (ids.size() == 1) {
            return summary;
        }
        throw new IllegalArgumentException(p + " has no scenario " + scenario + " (it has: " + String.join(", ", ids) + ")");
    }

    private static String name(JsonNode s, Path dir) {
        return s.path("run_id").asText(dir.getFileName().toString())
                + (s.path("replay_id").isTextual() ? " (replay " + s.path("replay_id").asText() + ")" : "");
    }

    private static void rows(List<Row> out, String scenario, JsonNode a, JsonNode b) {
        for (String[] f : FIGURES) {
            final double scale = Double.parseDouble(f[2]);
            out.add(new Row(scenario, f[0], value(a, f[1], scale), value(b, f[1], scale)));
        }
    }

    private static Double value(JsonNode n, String path, double scale) {
        JsonNode x = n;
        for (String p : path.split("\\.")) {
            x = x.path(p);
        }
        return x.isNumber() ? x.asDouble() * scale : null;
    }

    private static JsonNode read(Path summary, Path bundle) {
        try {
            return new ObjectMapper().readTree(Files.readAllBytes(summary));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(bundle + " is not a report bundle: it has no summary.json (make one with goodput report)");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True when a contract difference makes the comparison unfair. */
    public boolean unfair() {
        return differences.stream().anyMatch(ContractDiff.Difference::unfair);
    }

    /** The comparison as text, for a terminal. */
    public String text() {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "A: %s%nB: %s%n", nameA, nameB));
        final boolean bothBundles = notes.stream().noneMatch(n -> n.startsWith("contracts:"));
        if (differences.isEmpty() && bothBundles) {
            sb.append("contracts and judging: identical\n");
        } else if (!differences.isEmpty()) {
            sb.append("contracts or judging differ in ").append(differences.size()).append(differences.size() == 1 ? " field:\n" : " fields:\n");
            for (ContractDiff.Difference d : differences) {
                sb.append(String.format(Locale.ROOT, "  %-40s %s -> %s  (%s)%n", d.field(), d.a(), d.b(), d.why()));
            }
        }
        if (unfair()) {
            sb.append("WARNING: this comparison is unfair: ");
            sb.append(String.join("; ", differences.stream().filter(ContractDiff.Difference::unfair)
                    .map(d -> d.field() + " differs (" + d.why() + ")").toList()));
            sb.append(".\n");
        }
        notes.forEach(n -> sb.append("NOTE: ").append(n).append('\n'));
        sb.append(String.format(Locale.ROOT, "%n%-24s %-20s %14s %14s %9s%n", "scenario", "figure", "A", "B", "B vs A"));
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, "%-24s %-20s %14s %14s %9s%n", r.scenario(), r.figure(), fmt(r.a()), fmt(r.b()),
                    r.change() == null ? "" : String.format(Locale.ROOT, "%+.1f%%", r.change() * 100)));
        }
        return sb.toString();
    }

    private static String fmt(Double v) {
        return v == null ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
    }

    /** The comparison as a small HTML page. */
    public String html() {
        final StringBuilder h = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Goodput comparison</title>"
                + "<style>body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px}table{border-collapse:collapse}"
                + "td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:right}td:first-child,th:first-child,td:nth-child(2){text-align:left}"
                + ".warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.5rem}tr.unfair td{color:#a33}</style></head><body>\n");
        h.append("<h1>Goodput comparison</h1>\n<p>A: ").append(Fmt.html(nameA)).append("<br>B: ").append(Fmt.html(nameB)).append("</p>\n");
        if (unfair()) {
            h.append("<p class=\"warn\" id=\"unfair\">This comparison is unfair: the contracts differ in fields that change the workload or "
                    + "how results are judged (marked below).</p>\n");
        }
        for (String n : notes) {
            h.append("<p class=\"note\">").append(Fmt.html(n)).append("</p>\n");
        }
        h.append("<h2>Contract differences</h2>\n<table id=\"differences\"><tr><th>field</th><th>A</th><th>B</th><th>meaning</th></tr>\n");
        for (ContractDiff.Difference d : differences) {
            h.append("<tr data-field=\"").append(Fmt.html(d.field())).append("\"").append(d.unfair() ? " class=\"unfair\"" : "")
                    .append("><td>").append(Fmt.html(d.field())).append("</td><td>").append(Fmt.html(d.a())).append("</td><td>")
                    .append(Fmt.html(d.b())).append("</td><td>").append(Fmt.html(d.why())).append("</td></tr>\n");
        }
        if (differences.isEmpty()) {
            h.append("<tr><td colspan=\"4\">").append(notes.stream().anyMatch(n -> n.startsWith("contracts:")) ? "not recorded by one side"
                    : "identical").append("</td></tr>\n");
        }
        h.append("</table>\n<h2>Figures</h2>\n<table id=\"figures\"><tr><th>scenario</th><th>figure</th><th>A</th><th>B</th><th>B vs A</th></tr>\n");
        for (Row r : rows) {
            h.append("<tr><td>").append(Fmt.html(r.scenario())).append("</td><td>").append(Fmt.html(r.figure())).append("</td><td>")
                    .append(fmt(r.a())).append("</td><td>").append(fmt(r.b())).append("</td><td>")
                    .append(r.change() == null ? "" : String.format(Locale.ROOT, "%+.1f%%", r.change() * 100)).append("</td></tr>\n");
        }
        return h.append("</table>\n</body></html>\n").toString();
    }
}
