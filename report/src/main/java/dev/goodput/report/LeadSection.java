package dev.goodput.report;

import static dev.goodput.report.Fmt.html;
import static dev.goodput.report.Fmt.num;
import static dev.goodput.report.Fmt.pct;
import static dev.goodput.report.Fmt.usd;

import java.util.Locale;

/**
 * The top of the page: each scenario's load, attainment, goodput and cost per good 1M (an operating
 * point each), and the cheapest per good token; the run's totals follow, labelled as the blend of
 * loads they are, never as an operating point.
 */
final class LeadSection {

    private LeadSection() {
    }

    static void write(StringBuilder h, Report r) {
        ScenarioSummary best = null;
        for (ScenarioSummary s : r.scenarios()) {
            if (s.costPerSuccessfulM() != null && (best == null || s.costPerSuccessfulM() < best.costPerSuccessfulM())) {
                best = s;
            }
        }
        h.append("<p class=\"lead\" id=\"headline\">");
        if (best == null) {
            h.append("No scenario has a cost per successful 1M output tokens (none was priced, or none had a good request).");
        } else {
            h.append("Cheapest per good token: <b data-k=\"best\">").append(html(best.scenarioId())).append("</b> at ")
                    .append(load(best)).append(": <b data-k=\"best_cost\">").append(usd(best.costPerSuccessfulM()))
                    .append("</b> per successful 1M output tokens, ").append(pct(best.goodFraction()))
                    .append(" of its requests good, goodput ").append(num(best.goodputRps())).append(" good requests/s.");
        }
        h.append(" Contract <code>").append(html(r.contract().id().substring(0, 12))).append("</code>.</p>\n");
        h.append("<table id=\"lead\"><thead><tr><th>scenario</th><th>load</th><th>requests</th><th>good</th>"
                + "<th>goodput (good req/s)</th><th>$ / successful 1M</th></tr></thead><tbody>\n");
        for (ScenarioSummary s : r.scenarios()) {
            h.append("<tr data-scenario=\"").append(html(s.scenarioId())).append("\"><td>").append(html(s.scenarioId())).append("</td>");
            HtmlPage.cell(h, "load", load(s));
            HtmlPage.cell(h, "requests", s.requests());
            HtmlPage.cell(h, "good_fraction", s.requests() == 0 ? "n/a" : pct(s.goodFraction()));
            HtmlPage.cell(h, "goodput_rps", num(s.goodputRps()));
            HtmlPage.cell(h, "cost", usd(s.costPerSuccessfulM()));
            h.append("</tr>\n");
        }
        final ScenarioSummary t = r.total();
        h.append("</tbody></table>\n<p class=\"note\" id=\"blend\">All scenarios together, a blend of their loads and no operating"
                + " point: <span data-k=\"requests\">").append(t.requests()).append("</span> requests, <span data-k=\"good_fraction\">")
                .append(t.requests() == 0 ? "n/a" : pct(t.goodFraction())).append("</span> good, <span data-k=\"goodput_rps\">")
                .append(num(t.goodputRps())).append("</span> good requests/s, <span data-k=\"cost\">").append(usd(t.costPerSuccessfulM()))
                .append("</span> per successful 1M output tokens over their measured time.</p>\n");
    }

    private static String load(ScenarioSummary s) {
        return s.closedLoop() ? String.format(Locale.ROOT, "%.0f concurrent", s.load()) : String.format(Locale.ROOT, "%s req/s", num(s.load()));
    }
}
