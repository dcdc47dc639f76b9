package dev.goodput.report;

import static dev.goodput.report.Fmt.html;
import static dev.goodput.report.Fmt.ms;
import static dev.goodput.report.Fmt.num;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.ServerMetrics;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;

/**
 * The engine's queue over time beside the client's TTFT: the engine's samples of its own metrics
 * ({@code --server-metrics}) and the run's requests, in spans of {@link #SPAN_US}: the most requests
 * the engine had waiting and running, its prompt and generation throughput (the difference of its
 * token totals over the span's samples), and the TTFT of the requests sent in the span.
 */
final class EngineTimeline {

    static final long SPAN_US = 10_000_000;

    /** One span of the run. */
    record Span(long startUs, String engine, Double queuedMax, Double runningMax, Double promptTokensPerS,
                Double generationTokensPerS, int requests, long ttftP50Us, long ttftMaxUs) {
    }

    private EngineTimeline() {
    }

    static List<Span> spans(RunRecords run) {
        final List<ServerMetrics> samples = run.serverMetrics();
        if (samples.isEmpty()) {
            return List.of();
        }
        final long t0 = Micros.of(samples.get(0).getSampledAtUs());
        final Map<Long, List<ServerMetrics>> bySpan = new TreeMap<>();
        samples.forEach(m -> bySpan.computeIfAbsent(span(Micros.of(m.getSampledAtUs()), t0), k -> new ArrayList<>()).add(m));
        final Map<Long, List<Long>> ttft = new TreeMap<>();
        for (RequestEvent e : run.requests()) {
            if (!e.getWarmup() && e.getFirstChunkTimeUs() != null) {
                ttft.computeIfAbsent(span(Micros.of(e.getIntendedSendTimeUs()), t0), k -> new ArrayList<>())
                        .add(Definitions.ttft(Micros.of(e.getIntendedSendTimeUs()), Micros.of(e.getFirstChunkTimeUs())));
            }
        }
        final List<Span> out = new ArrayList<>();
        bySpan.forEach((start, ms) -> {
            final List<Long> t = ttft.getOrDefault(start, List.of()).stream().sorted().toList();
            out.add(new Span(start, ms.get(0).getEngine(), max(ms, ServerMetrics::getQueued), max(ms, ServerMetrics::getRunning),
                    rate(ms, ServerMetrics::getPromptTokensTotal), rate(ms, ServerMetrics::getGenerationTokensTotal), t.size(),
                    t.isEmpty() ? 0 : t.get(Math.max(0, (int) Math.ceil(0.5 * t.size()) - 1)), t.isEmpty() ? 0 : t.get(t.size() - 1)));
        });
        return out;
    }

    private static long span(long us, long t0) {
        return t0 + Math.floorDiv(us - t0, SPAN_US) * SPAN_US;
    }

    private static Double max(List<ServerMetrics> ms, Function<ServerMetrics, Double> f) {
        return ms.stream().map(f).filter(v -> v != null).max(Double::compare).orElse(null);
    }

    /** A counter's increase over the span's first and last sample, per second; null with fewer than two. */
    private static Double rate(List<ServerMetrics> ms, Function<ServerMetrics, Double> total) {
        final ServerMetrics first = ms.get(0);
        final ServerMetrics last = ms.get(ms.size() - 1);
        final double seconds = (Micros.of(last.getSampledAtUs()) - Micros.of(first.getSampledAtUs())) / 1e6;
        if (ms.size() < 2 || total.apply(first) == null || total.apply(last) == null || !(seconds > 0)) {
            return null;
        }
        return (total.apply(last) - total.apply(first)) / seconds;
    }

    static String csv(List<Span> spans) {
        final Csv csv = new Csv(List.of("span_start_us", "engine", "queued_max", "running_max", "prompt_tokens_per_s",
                "generation_tokens_per_s", "requests_sent", "ttft_p50_us", "ttft_max_us"));
        for (Span s : spans) {
            csv.row(Arrays.asList(s.startUs(), s.engine(), s.queuedMax(), s.runningMax(), s.promptTokensPerS(),
                    s.generationTokensPerS(), s.requests(), s.requests() == 0 ? null : s.ttftP50Us(),
                    s.requests() == 0 ? null : s.ttftMaxUs()));
        }
        return csv.toString();
    }

    static void section(StringBuilder h, List<Span> spans) {
        if (spans.isEmpty()) {
            return;
        }
        h.append("<h2>The engine's queue beside the client's TTFT</h2>\n<p class=\"note\">From the engine's own metrics endpoint (")
                .append(html(spans.get(0).engine())).append(" names), sampled during the run, in ").append(SPAN_US / 1_000_000)
                .append(" s spans; TTFT of the requests sent in each span.</p>\n<table id=\"engine-timeline\"><thead><tr>"
                        + "<th>span</th><th>waiting (max)</th><th>running (max)</th><th>prompt tokens/s</th><th>generated tokens/s</th>"
                        + "<th>requests sent</th><th>TTFT p50</th><th>TTFT max</th></tr></thead><tbody>\n");
        final long t0 = spans.get(0).startUs();
        for (Span s : spans) {
            h.append("<tr><td>+").append((s.startUs() - t0) / 1_000_000).append(" s</td>");
            HtmlPage.cell(h, "queued", s.queuedMax() == null ? "-" : num(s.queuedMax()));
            HtmlPage.cell(h, "running", s.runningMax() == null ? "-" : num(s.runningMax()));
            HtmlPage.cell(h, "prompt_tps", s.promptTokensPerS() == null ? "-" : num(s.promptTokensPerS()));
            HtmlPage.cell(h, "generation_tps", s.generationTokensPerS() == null ? "-" : num(s.generationTokensPerS()));
            HtmlPage.cell(h, "requests", s.requests());
            HtmlPage.cell(h, "ttft_p50", s.requests() == 0 ? "-" : ms(s.ttftP50Us()));
            HtmlPage.cell(h, "ttft_max", s.requests() == 0 ? "-" : ms(s.ttftMaxUs()));
            h.append("</tr>\n");
        }
        h.append("</tbody></table>\n");
    }
}
