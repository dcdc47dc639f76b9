package dev.goodput.streams.time;

import dev.goodput.topics.Keys;

/**
 * One window of one scenario of one contract: the unit every aggregate, partial and final record is
 * kept by. {@link #storeKey()} is its key in the state stores (and orders windows of one scenario
 * by nothing in particular: order by {@link #startUs()} when it matters).
 */
public record WindowKey(String contractId, String scenarioId, long startUs) {

    public WindowKey {
        if (contractId == null || scenarioId == null) {
            throw new IllegalArgumentException("a window needs a contract and a scenario");
        }
    }

    public String storeKey() {
        return new Keys.Window(contractId, scenarioId, startUs).text();
    }

    /** The contract|scenario part: the key the window's partials travel under to their merger. */
    public String scenarioKey() {
        return new Keys.Scenario(contractId, scenarioId).text();
    }
}
