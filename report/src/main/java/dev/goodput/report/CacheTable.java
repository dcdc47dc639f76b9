package dev.goodput.report;

import static dev.goodput.report.Fmt.html;
import static dev.goodput.report.Fmt.ms;
import static dev.goodput.report.Fmt.pct;

/**
 * The page's cache table: per scenario, the prefix cache's hit rate and what it did to TTFT, the
 * engine's own count beside the client's, and the scenario's sessions ({@link CacheSummary}).
 */
final class CacheTable {

    private CacheTable() {
    }

    static void write(StringBuilder h, Report r) {
        h.append("<h2>Prefix cache and sessions</h2>\n<table id=\"cache\"><thead><tr><th>scenario</th><th>requests</th>"
                + "<th>said cached tokens</th><th>hit rate (token-weighted)</th><th>hits</th><th>misses</th>"
                + "<th>TTFT p50 hit (ms)</th><th>TTFT p50 miss (ms)</th><th>engine cache_n equal</th><th>sessions</th>"
                + "<th>turns per session</th><th>sessions good throughout</th><th>session time p50 (ms)</th></tr></thead><tbody>\n");
        for (CacheSummary c : r.cache().values()) {
            h.append("<tr data-scenario=\"").append(html(c.scenarioId())).append("\"><td>").append(html(c.scenarioId())).append("</td>");
            HtmlPage.cell(h, "requests", c.requests());
            HtmlPage.cell(h, "reporting", c.reporting());
            HtmlPage.cell(h, "hit_rate", Double.isNaN(c.hitRate()) ? "not said" : pct(c.hitRate()));
            HtmlPage.cell(h, "hits", c.hits());
            HtmlPage.cell(h, "misses", c.reporting() - c.hits());
            HtmlPage.cell(h, "ttft_p50_hit", c.ttftP50HitUs() == null ? "n/a" : ms(c.ttftP50HitUs()));
            HtmlPage.cell(h, "ttft_p50_miss", c.ttftP50MissUs() == null ? "n/a" : ms(c.ttftP50MissUs()));
            HtmlPage.cell(h, "engine_equal", c.engineChecked() == 0 ? "n/a" : c.engineEqual() + " of " + c.engineChecked());
            HtmlPage.cell(h, "sessions", c.sessions());
            HtmlPage.cell(h, "turns_per_session", c.sessions() == 0 ? "n/a" : Fmt.num((double) c.turns() / c.sessions()));
            HtmlPage.cell(h, "sessions_all_good", c.sessions() == 0 ? "n/a" : c.sessionsAllGood());
            HtmlPage.cell(h, "session_time_p50", c.sessionTimeP50Us() == null ? "n/a" : ms(c.sessionTimeP50Us()));
            h.append("</tr>\n");
        }
        h.append("</tbody></table>\n");
        final EngineCache e = r.engineCache();
        if (e != null) {
            h.append("<p id=\"engine-cache\">Over the run, the engine's own counters (").append(html(e.engine()))
                    .append(") give a hit rate of ").append(Double.isNaN(e.engineHitRate()) ? "n/a" : pct(e.engineHitRate()))
                    .append("; the requests' usage reports, ").append(Double.isNaN(e.clientHitRate()) ? "n/a" : pct(e.clientHitRate()))
                    .append(" (").append(e.clientRequests()).append(" requests, warm-up included).</p>\n");
        }
        h.append("<p class=\"note\">From the measured ok requests whose server said how many prompt tokens it"
                + " served from its cache (usage.prompt_tokens_details.cached_tokens). Hit rate: cached over prompt tokens of those"
                + " requests. A hit: half the prompt or more cached. Engine: llama.cpp's timings.cache_n on the same request.</p>\n");
    }
}
