package dev.goodput.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.definitions.CostFormulas;

/**
 * The same good tokens bought at a retail price list, beside what self-hosting them cost: for one
 * scenario (or all) and one retail key, the good requests' input tokens, how many of those the
 * server served from its cache, their output tokens, and what they cost at the version of the list
 * in force at each request's completion ({@link CostFormulas#retailCost}); per successful 1M output
 * tokens, as the self-hosted figure is. A request whose server said nothing of its cache is priced
 * as uncached; one completed before any version took effect is left unpriced and counted.
 *
 * @param unpriced good requests no version of the key was in force for
 * @param selfHostedPerSuccessfulM the scenario's GPU-time cost per successful 1M output tokens, or null
 */
public record RetailComparison(String scenarioId, String retailKey, long goodRequests, long inputTokens, long cachedInputTokens,
                               long outputTokens, double retailUsd, long unpriced, Double selfHostedPerSuccessfulM) {

    /** The retail cost per successful 1M output tokens; null when nothing was priced. */
    public Double retailPerSuccessfulM() {
        final double v = CostFormulas.costPerSuccessfulMillion(retailUsd, outputTokens);
        return goodRequests - unpriced == 0 || Double.isNaN(v) ? null : v;
    }

    /** One row per scenario (then all scenarios) and retail key, over the run's measured good requests. */
    public static List<RetailComparison> of(Report r, List<RetailPrice> retail) {
        if (retail.isEmpty()) {
            return List.of();
        }
        final Map<String, RequestVerdict> verdicts = new HashMap<>();
        r.run().verdicts().forEach(v -> verdicts.put(v.getRequestId(), v));
        final Map<String, List<RequestEvent>> good = new LinkedHashMap<>();
        r.scenarios().forEach(s -> good.put(s.scenarioId(), new ArrayList<>()));
        final List<RequestEvent> all = new ArrayList<>();
        for (RequestEvent e : r.run().requests()) {
            final RequestVerdict v = verdicts.get(e.getRequestId());
            if (!e.getWarmup() && e.getStatus() == RequestStatus.OK && v != null && v.getGood()) {
                good.computeIfAbsent(e.getScenarioId(), k -> new ArrayList<>()).add(e);
                all.add(e);
            }
        }
        final Map<String, Double> selfHosted = new HashMap<>();
        r.scenarios().forEach(s -> selfHosted.put(s.scenarioId(), s.costPerSuccessfulM()));
        final List<String> keys = retail.stream().map(RetailPrice::retailKey).distinct().toList();
        final List<RetailComparison> out = new ArrayList<>();
        good.forEach((scenario, events) -> keys.forEach(k -> out.add(row(scenario, k, events, retail, selfHosted.get(scenario)))));
        keys.forEach(k -> out.add(row("all scenarios", k, all, retail, r.total().costPerSuccessfulM())));
        return out;
    }

    static RetailComparison row(String scenario, String key, List<RequestEvent> good, List<RetailPrice> retail, Double selfHosted) {
        long input = 0;
        long cached = 0;
        long output = 0;
        long unpriced = 0;
        double usd = 0;
        for (RequestEvent e : good) {
            final RetailPrice p = RetailPrice.inForce(retail, key, e.getCompletionTimeUs());
            if (p == null) {
                unpriced++;
                continue;
            }
            final int c = e.getCachedPromptTokens() == null ? 0 : e.getCachedPromptTokens();
            input += e.getPromptTokens();
            cached += c;
            output += e.getOutputTokens();
            usd += CostFormulas.retailCost(e.getPromptTokens(), c, e.getOutputTokens(), p.usdPerMInput(), p.cachedInputPrice(),
                    p.usdPerMOutput());
        }
        return new RetailComparison(scenario, key, good.size(), input, cached, output, usd, unpriced, selfHosted);
    }

    /** As summary.json carries it ({@code retail}). */
    public Map<String, Object> json() {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario_id", scenarioId);
        m.put("retail_key", retailKey);
        m.put("good_requests", goodRequests);
        m.put("input_tokens", inputTokens);
        m.put("cached_input_tokens", cachedInputTokens);
        m.put("output_tokens", outputTokens);
        m.put("retail_usd", retailUsd);
        m.put("unpriced_requests", unpriced);
        m.put("retail_cost_per_successful_m_usd", retailPerSuccessfulM());
        m.put("self_hosted_cost_per_successful_m_usd", selfHostedPerSuccessfulM);
        return m;
    }
}
