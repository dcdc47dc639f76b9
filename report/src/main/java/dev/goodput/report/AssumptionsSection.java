package dev.goodput.report;

import static dev.goodput.report.Fmt.html;
import static dev.goodput.report.Fmt.num;
import static dev.goodput.report.Fmt.pct;

import java.util.List;

import dev.goodput.avro.GpuPrice;

/**
 * The page's assumptions: the price versions, the hardware, the cost rule and the time it charged,
 * the judging that made the verdicts (objectives and floor as the windows recorded them, and what a
 * what-if changed), the warm-up, how the run was observed and the decoding not sent.
 */
final class AssumptionsSection {
    private AssumptionsSection() {
    }

    static void write(StringBuilder h, Report r) {
        h.append("<h2>Assumptions</h2>\n<table id=\"prices\"><thead><tr><th>price key</th><th>$ / GPU-hour</th><th>effective from (UTC)</th>"
                + "<th>source</th><th>other $ / hour</th><th>cold-start GPU-h / h</th><th>warm headroom (%)</th></tr></thead><tbody>\n");
        for (GpuPrice p : r.run().prices()) {
            h.append("<tr><td>").append(html(p.getPriceKey())).append("</td><td>").append(num(p.getUsdPerGpuHour())).append(' ')
                    .append(html(p.getCurrency())).append("</td><td>").append(p.getEffectiveFromUs()).append("</td><td>")
                    .append(html(p.getSource())).append("</td><td>")
                    .append(num(p.getCpuUsdPerHour() + p.getStorageUsdPerHour() + p.getNetworkUsdPerHour()
                            + p.getObservabilityUsdPerHour() + p.getSupportUsdPerHour()))
                    .append("</td><td>").append(num(p.getColdStartGpuHoursPerHour())).append("</td><td>")
                    .append(pct(p.getWarmHeadroomFraction())).append("</td></tr>\n");
        }
        if (r.run().prices().isEmpty()) {
            h.append("<tr><td colspan=\"7\">no price was published for this run's price key: cost is not computed</td></tr>\n");
        }
        final var hw = r.contract().hardware();
        h.append("</tbody></table>\n<ul>\n<li>Hardware: ").append(hw.gpuCount()).append(" x ").append(html(hw.gpuType()))
                .append(", priced by <code>").append(html(hw.priceKey())).append("</code>; utilization is achieved output tokens/s over ")
                .append(hw.peakOutputTokensPerS() == null ? "no configured peak (not computed)" : num(hw.peakOutputTokensPerS()) + " tokens/s")
                .append(".</li>\n");
        h.append("<li>Cost: hourly cost (GPUs, CPU, storage, network, observability, support, cold-start GPU time) x (1 + warm"
                + " headroom) x measured hours / output tokens of good requests x 1e6. A scenario is charged its measured span only"
                + " (warm-up end to its end): a window it shares with another is split between them, a window it barely touches is"
                + " charged the seconds it used.</li>\n<li id=\"idle\">Idle between scenarios, charged to none: ")
                .append(num(ChargedTime.idleSeconds(ChargedTime.spans(r.run().runs())))).append(" s.</li>\n");
        judging(h, r);
        h.append("<li>Warm-up: ").append(r.contract().arrival().warmupS()).append(" s excluded from results.</li>\n<li id=\"observation\">")
                .append(html(Observation.of(r.contract()))).append("</li>\n");
        final List<String> notSent = r.contract().decoding().notSent();
        if (!notSent.isEmpty()) {
            h.append("<li>Decoding: ").append(html(String.join(", ", notSent))).append(" not set in the contract, so not sent:"
                    + " the server's own default applied (llama.cpp's top_k is 40, vLLM's -1).</li>\n");
        }
        h.append("</ul>\n");
    }

    /** The objectives and floor that judged the results, and what a what-if changed against the contract. */
    private static void judging(StringBuilder h, Report r) {
        final Judging j = r.judging();
        h.append("<li id=\"judged-by\">Latency objectives: ").append(html(HtmlPage.objectives(j.objectives())))
                .append("; quality floor ").append(j.qualityFloor())
                .append(j.recorded() ? " (as the windows recorded them)" : " (the contract's: these windows did not record what judged them)")
                .append(".</li>\n");
        final List<String> against = j.against(r.contract());
        if (!against.isEmpty()) {
            h.append("<li id=\"what-if\" class=\"warn\">What-if: judged by other objectives than the contract's: ")
                    .append(html(String.join("; ", against))).append(".</li>\n");
        }
        if (j.mixed()) {
            h.append("<li class=\"warn\">The windows of this run were judged by more than one set of objectives: its figures mix them.</li>\n");
        }
    }
}
