package dev.goodput.report;

import static dev.goodput.report.Fmt.html;
import static dev.goodput.report.Fmt.num;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.definitions.SequenceLengths;

/** The page's sequence-length table: input and output tokens of the measured ok requests, per scenario and in all. */
final class LengthsTable {

    private LengthsTable() {
    }

    /** The measured ok requests' input and output lengths by scenario (a request published twice counted once). */
    static Map<String, long[][]> lengthsByScenario(RunRecords run) {
        final Map<String, RequestEvent> seen = new LinkedHashMap<>();
        run.requests().stream().filter(e -> !e.getWarmup() && e.getStatus() == RequestStatus.OK)
                .forEach(e -> seen.putIfAbsent(e.getRequestId() + "#" + e.getAttempt(), e));
        final Map<String, List<RequestEvent>> by = new LinkedHashMap<>();
        run.scenarioIds().forEach(id -> by.put(id, new ArrayList<>()));
        seen.values().forEach(e -> by.computeIfAbsent(e.getScenarioId(), k -> new ArrayList<>()).add(e));
        by.put(ALL, new ArrayList<>(seen.values()));
        final Map<String, long[][]> out = new LinkedHashMap<>();
        by.forEach((id, es) -> out.put(id, new long[][] {es.stream().mapToLong(RequestEvent::getPromptTokens).toArray(),
                es.stream().mapToLong(RequestEvent::getOutputTokens).toArray()}));
        return out;
    }

    private static final String ALL = "all scenarios";

    static void write(StringBuilder h, Report r) {
        h.append("<h2>Sequence lengths</h2>\n<table id=\"lengths\"><thead><tr><th>scenario</th><th>sequence</th><th>requests</th>"
                + "<th>mean (tokens)</th><th>std (tokens)</th><th>min (tokens)</th><th>p50 (tokens)</th><th>p90 (tokens)</th>"
                + "<th>p99 (tokens)</th><th>max (tokens)</th></tr></thead><tbody>\n");
        for (var e : lengthsByScenario(r.run()).entrySet()) {
            for (int k = 0; k < 2; k++) {
                final SequenceLengths l = SequenceLengths.of(e.getValue()[k]);
                final String seq = k == 0 ? "input" : "output";
                h.append("<tr data-scenario=\"").append(html(e.getKey())).append("\" data-metric=\"").append(seq).append("\"><td>")
                        .append(html(e.getKey())).append("</td><td>").append(k == 0 ? "input (ISL)" : "output (OSL)").append("</td>");
                HtmlPage.cell(h, "count", l.count());
                HtmlPage.cell(h, "mean", num(l.mean()));
                HtmlPage.cell(h, "std", num(l.std()));
                HtmlPage.cell(h, "min", l.min());
                HtmlPage.cell(h, "p50", l.p50());
                HtmlPage.cell(h, "p90", l.p90());
                HtmlPage.cell(h, "p99", l.p99());
                HtmlPage.cell(h, "max", l.max());
                h.append("</tr>\n");
            }
        }
        h.append("</tbody></table>\n<p class=\"note\">Prompt tokens and output tokens (the server's usage when it reported it) of the "
                + "measured ok requests; percentiles are exact (nearest rank).</p>\n");
    }
}
