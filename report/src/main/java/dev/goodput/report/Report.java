package dev.goodput.report;

import java.util.ArrayList;
import java.util.List;

import dev.goodput.contract.Contract;

/**
 * A run made publishable: its records, every scenario summarised, the run as a whole, the
 * contract it ran under (with the file's text), its provenance, and the retail token prices its
 * good tokens are compared with (none unless given).
 */
public record Report(RunRecords run, List<ScenarioSummary> scenarios, ScenarioSummary total, Contract contract,
                     String contractText, Provenance provenance, List<RetailPrice> retail) {

    /** Summarises a run. */
    public static Report of(RunRecords run, Contract contract, String contractText, Provenance provenance) {
        final List<ScenarioSummary> scenarios = ScenarioSummary.of(run);
        final ScenarioSummary total = ScenarioSummary.of("all scenarios", run.runs(), run.windows(), run.costs(), run.verdicts());
        return new Report(run, new ArrayList<>(scenarios), total, contract, contractText, provenance, List.of());
    }

    /** The same report, its good tokens also priced at these retail prices ({@link RetailComparison}). */
    public Report withRetail(List<RetailPrice> prices) {
        return new Report(run, scenarios, total, contract, contractText, provenance, List.copyOf(prices));
    }

    /** What judged the results: the objectives and floor their windows recorded (a what-if's, or the contract's). */
    public Judging judging() {
        return Judging.of(run, contract);
    }
}
