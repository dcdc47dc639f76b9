package dev.goodput.report;

import static dev.goodput.report.Fmt.html;
import static dev.goodput.report.Fmt.usd;

import java.util.List;

/** The page's retail table: the run's good tokens bought at each retail price list, beside self-hosting them. */
final class RetailTable {

    private RetailTable() {
    }

    static void write(StringBuilder h, Report r) {
        final List<RetailComparison> rows = r.retailRows();
        if (rows.isEmpty()) {
            return;
        }
        h.append("<h2>Buying the same good tokens</h2>\n<table id=\"retail\"><thead><tr><th>scenario</th><th>retail price</th>"
                + "<th>good requests</th><th>input tokens</th><th>of them cached</th><th>output tokens</th><th>retail cost (USD)</th>"
                + "<th>retail $ / successful 1M</th><th>self-hosted $ / successful 1M</th></tr></thead><tbody>\n");
        for (RetailComparison c : rows) {
            h.append("<tr data-scenario=\"").append(html(c.scenarioId())).append("\" data-retail=\"").append(html(c.retailKey()))
                    .append("\"><td>").append(html(c.scenarioId())).append("</td><td>").append(html(c.retailKey())).append("</td>");
            HtmlPage.cell(h, "good_requests", c.goodRequests() + (c.unpriced() > 0 ? " (" + c.unpriced() + " unpriced)" : ""));
            HtmlPage.cell(h, "input_tokens", c.inputTokens());
            HtmlPage.cell(h, "cached_input_tokens", c.cachedInputTokens());
            HtmlPage.cell(h, "output_tokens", c.outputTokens());
            HtmlPage.cell(h, "retail_usd", String.format(java.util.Locale.ROOT, "%.4f", c.retailUsd()));
            HtmlPage.cell(h, "retail_per_m", c.retailPerSuccessfulM() == null ? "n/a" : usd(c.retailPerSuccessfulM()));
            HtmlPage.cell(h, "self_hosted_per_m", c.selfHostedPerSuccessfulM() == null ? "n/a" : usd(c.selfHostedPerSuccessfulM()));
            h.append("</tr>\n");
        }
        h.append("</tbody></table>\n<p class=\"note\">The good requests' tokens at each retail list's version in force at their"
                + " completion: uncached input, cached input (the server's usage report; not said: priced as input) and output"
                + " tokens, each at its price per million. Self-hosted: the GPU time the same run used, per successful 1M output"
                + " tokens. The lists are in assumptions.json.</p>\n");
    }
}
