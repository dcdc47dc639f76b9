package dev.goodput.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.goodput.contract.Contract;

/**
 * A run made publishable: its records, every scenario summarised, the run as a whole, the
 * contract it ran under (with the file's text), its provenance, each scenario's prefix cache and
 * the engine's count of it, and the retail token prices its good tokens are compared with (none
 * unless given) with that comparison. Each is worked out once here; the bundle's files and the
 * page read them.
 *
 * @param engineCache null when the engine's samples carry no cache counters
 */
public record Report(RunRecords run, List<ScenarioSummary> scenarios, ScenarioSummary total, Contract contract,
                     String contractText, Provenance provenance, Map<String, CacheSummary> cache, EngineCache engineCache,
                     List<RetailPrice> retail, List<RetailComparison> retailRows) {

    /** Summarises a run. */
    public static Report of(RunRecords run, Contract contract, String contractText, Provenance provenance) {
        final List<ScenarioSummary> scenarios = ScenarioSummary.of(run);
        final ScenarioSummary total = ScenarioSummary.of("all scenarios", run.runs(), run.windows(), run.costs(), run.verdicts());
        return new Report(run, new ArrayList<>(scenarios), total, contract, contractText, provenance, CacheSummary.of(run),
                EngineCache.of(run), List.of(), List.of());
    }

    /** The same report, its good tokens also priced at these retail prices ({@link RetailComparison}). */
    public Report withRetail(List<RetailPrice> prices) {
        return new Report(run, scenarios, total, contract, contractText, provenance, cache, engineCache, List.copyOf(prices),
                RetailComparison.of(this, prices));
    }

    /** What judged the results: the objectives and floor their windows recorded (a what-if's, or the contract's). */
    public Judging judging() {
        return Judging.of(run, contract);
    }
}
