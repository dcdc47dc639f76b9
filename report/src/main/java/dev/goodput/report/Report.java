package dev.goodput.report;

import java.util.ArrayList;
import java.util.List;

import dev.goodput.contract.Contract;

/**
 * A run made publishable: its records, every scenario summarised, the run as a whole, the
 * contract it ran under (with the file's text) and its provenance.
 */
public record Report(RunRecords run, List<ScenarioSummary> scenarios, ScenarioSummary total, Contract contract,
                     String contractText, Provenance provenance) {

    /** Summarises a run. */
    public static Report of(RunRecords run, Contract contract, String contractText, Provenance provenance) {
        final List<ScenarioSummary> scenarios = ScenarioSummary.of(run);
        final ScenarioSummary total = ScenarioSummary.of("all scenarios", run.runs(), run.windows(), run.costs(), run.verdicts());
        return new Report(run, new ArrayList<>(scenarios), total, contract, contractText, provenance);
    }

    /** What judged the results: the objectives and floor their windows recorded (a what-if's, or the contract's). */
    public Judging judging() {
        return Judging.of(run, contract);
    }
}
