package dev.goodput.report;

import static dev.goodput.report.Fmt.html;
import static dev.goodput.report.Fmt.ms;
import static dev.goodput.report.Fmt.num;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.ServerTimings;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.EngineAccount;
import dev.goodput.definitions.Micros;
import dev.goodput.records.Generation;
import dev.goodput.records.ServerCounts;

/**
 * The engine's own account beside the client's, per scenario, from the measured requests whose
 * stream carried the engine's timings (llama.cpp's): TTFT split into the engine's prompt time and
 * what came before it (the wait for a slot, transport, the client), the client's TPOT against the
 * engine's decode time per gap, output tokens against the engine's, and prompts as sized against
 * prompts as the server counted them. For latency the client's clock is the truth.
 */
final class EngineTable {

    /** One scenario's reconciliation. */
    record Row(String scenarioId, long requests, long withTimings, long outputTokensEqual, double tpotRatio,
               double decodePerGapP50Us, double perTokenP50Us, long ttftP50Us, long prefillP50Us, long beforePrefillP50Us,
               long beforePrefillP99Us, Integer templateTokens, long promptsOff, long promptsNotCounted, long resends) {
    }

    private EngineTable() {
    }

    static List<Row> rows(RunRecords run) {
        final Map<String, List<RequestEvent>> byScenario = new LinkedHashMap<>();
        for (RequestEvent e : run.requests()) {
            if (!e.getWarmup()) {
                byScenario.computeIfAbsent(e.getScenarioId(), k -> new ArrayList<>()).add(e);
            }
        }
        final List<Row> rows = new ArrayList<>();
        byScenario.forEach((scenario, events) -> rows.add(row(scenario, events, template(run, scenario))));
        return rows;
    }

    private static Integer template(RunRecords run, String scenario) {
        return run.runs().stream().filter(s -> s.getScenarioId().equals(scenario)).map(RunSummary::getChatTemplateTokens)
                .filter(t -> t != null).findFirst().orElse(null);
    }

    static Row row(String scenario, List<RequestEvent> events, Integer template) {
        long withTimings = 0;
        long equal = 0;
        long clientSpanUs = 0;
        double enginePredictedMs = 0;
        long off = 0;
        long notCounted = 0;
        long resends = 0;
        final List<Double> perGap = new ArrayList<>();
        final List<Double> perToken = new ArrayList<>();
        final List<Long> ttft = new ArrayList<>();
        final List<Long> prefill = new ArrayList<>();
        final List<Long> before = new ArrayList<>();
        for (RequestEvent e : events) {
            if (e.getResends() != null) {
                resends += e.getResends();
            }
            final Integer counted = ServerCounts.promptTokens(e);
            if (e.getIntendedPromptTokens() != null && counted == null) {
                notCounted++;
            } else if (e.getIntendedPromptTokens() != null && EngineAccount.promptOff(e.getIntendedPromptTokens(),
                    template == null ? 0 : template, counted)) {
                off++;
            }
            final ServerTimings t = e.getServerTimings();
            if (t == null || e.getStatus() != RequestStatus.OK || e.getFirstChunkTimeUs() == null) {
                continue;
            }
            withTimings++;
            if (e.getOutputTokens() == t.getPredictedN()) {
                equal++;
            }
            final long ttftUs = Definitions.ttft(Micros.of(e.getIntendedSendTimeUs()), Micros.of(e.getFirstChunkTimeUs()));
            ttft.add(ttftUs);
            prefill.add(Math.round(t.getPromptMs() * 1000));
            before.add(EngineAccount.beforePrefillUs(ttftUs, t.getPromptMs()));
            if (t.getPredictedN() >= 2 && e.getLastChunkTimeUs() != null) {
                clientSpanUs += Generation.endUs(e) - Micros.of(e.getFirstChunkTimeUs());
                enginePredictedMs += t.getPredictedMs();
                perGap.add(EngineAccount.decodePerGapUs(t.getPredictedMs(), t.getPredictedN()));
                perToken.add(t.getPredictedMs() * 1000 / t.getPredictedN());
            }
        }
        return new Row(scenario, events.size(), withTimings, equal, EngineAccount.tpotRatio(clientSpanUs, enginePredictedMs),
                median(perGap), median(perToken), (long) median(ttft), (long) median(prefill), (long) median(before),
                nearestRank(before, 99), template, off, notCounted, resends);
    }

    private static double median(List<? extends Number> values) {
        return values.isEmpty() ? Double.NaN : nearestRank(values, 50);
    }

    /** Exact nearest-rank percentile of a request set (no histogram: these are per-request figures of one scenario). */
    private static long nearestRank(List<? extends Number> values, int percentile) {
        if (values.isEmpty()) {
            return 0;
        }
        final double[] v = values.stream().mapToDouble(Number::doubleValue).sorted().toArray();
        return Math.round(v[Math.max(0, (int) Math.ceil(percentile / 100.0 * v.length) - 1)]);
    }

    static String csv(List<Row> rows) {
        final Csv csv = new Csv(List.of("scenario_id", "requests", "with_engine_timings", "output_tokens_equal",
                "client_tpot_over_engine_decode_per_gap", "engine_decode_per_gap_p50_us", "engine_predicted_per_token_p50_us",
                "ttft_p50_us", "engine_prompt_p50_us", "before_prefill_p50_us", "before_prefill_p99_us", "chat_template_tokens",
                "prompts_off_over_5pct", "prompts_not_counted", "resends"));
        for (Row r : rows) {
            csv.row(Arrays.asList(r.scenarioId(), r.requests(), r.withTimings(), r.outputTokensEqual(), r.tpotRatio(),
                    r.decodePerGapP50Us(), r.perTokenP50Us(), r.ttftP50Us(), r.prefillP50Us(), r.beforePrefillP50Us(),
                    r.beforePrefillP99Us(), r.templateTokens(), r.promptsOff(), r.promptsNotCounted(), r.resends()));
        }
        return csv.toString();
    }

    /** The page's section; nothing when no request carried the engine's timings and none was resent or off. */
    static void section(StringBuilder h, List<Row> rows) {
        if (rows.stream().allMatch(r -> r.withTimings() == 0 && r.promptsOff() == 0 && r.resends() == 0)) {
            return;
        }
        h.append("<h2>The engine's own account</h2>\n<p class=\"note\">From the engine's per-request timings (llama.cpp's)."
                + " Its prompt time leaves out the wait for a slot, so TTFT less the engine's prompt time is that wait plus"
                + " transport and the client: for latency the client's clock is the truth. The engine's decode time per gap is"
                + " predicted_ms / (predicted_n - 1), the gaps TPOT counts; llama.cpp's own per-token figure divides by"
                + " predicted_n and reads n/(n-1) lower.</p>\n<table id=\"engine\"><thead><tr><th>scenario</th><th>requests</th>"
                + "<th>with engine timings</th><th>output tokens equal</th><th>client TPOT / engine decode per gap</th>"
                + "<th>engine decode per gap p50</th><th>llama.cpp per token p50</th><th>TTFT p50</th><th>engine prompt p50</th>"
                + "<th>before prefill p50 / p99</th><th>template tokens</th><th>prompts off &gt; 5 %</th><th>prompts not counted</th><th>resent</th>"
                + "</tr></thead><tbody>\n");
        for (Row r : rows) {
            h.append("<tr data-scenario=\"").append(html(r.scenarioId())).append("\"><td>").append(html(r.scenarioId())).append("</td>");
            HtmlPage.cell(h, "requests", r.requests());
            HtmlPage.cell(h, "with_timings", r.withTimings());
            HtmlPage.cell(h, "tokens_equal", r.outputTokensEqual());
            HtmlPage.cell(h, "tpot_ratio", Double.isNaN(r.tpotRatio()) ? "-" : String.format(Locale.ROOT, "%.4f", r.tpotRatio()));
            HtmlPage.cell(h, "decode_per_gap", Double.isNaN(r.decodePerGapP50Us()) ? "-" : ms(Math.round(r.decodePerGapP50Us())));
            HtmlPage.cell(h, "per_token", Double.isNaN(r.perTokenP50Us()) ? "-" : ms(Math.round(r.perTokenP50Us())));
            HtmlPage.cell(h, "ttft_p50", r.withTimings() == 0 ? "-" : ms(r.ttftP50Us()));
            HtmlPage.cell(h, "prefill_p50", r.withTimings() == 0 ? "-" : ms(r.prefillP50Us()));
            HtmlPage.cell(h, "before_prefill", r.withTimings() == 0 ? "-" : ms(r.beforePrefillP50Us()) + " / " + ms(r.beforePrefillP99Us()));
            HtmlPage.cell(h, "template", r.templateTokens() == null ? "-" : num(r.templateTokens()));
            HtmlPage.cell(h, "prompts_off", r.promptsOff());
            HtmlPage.cell(h, "prompts_not_counted", r.promptsNotCounted());
            HtmlPage.cell(h, "resends", r.resends());
            h.append("</tr>\n");
        }
        h.append("</tbody></table>\n");
        if (rows.stream().anyMatch(r -> r.promptsOff() > 0)) {
            h.append("<p class=\"warn\">The server counted some prompts more than 5 % away from their intended length: the contract's"
                    + " tokenizer is not the target's, and prompt lengths are not what the scenarios name.</p>\n");
        }
    }
}
