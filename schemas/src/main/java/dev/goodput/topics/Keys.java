package dev.goodput.topics;

/**
 * The keys results are kept and sent by: a scenario of a contract, one of its windows, and a cost
 * span of it. {@link #text()} is the key's form on the result topics and in state stores
 * ({@code contract|scenario}, {@code contract|scenario|window start in µs}, {@code contract|scenario|span});
 * in memory the records themselves are the keys.
 */
public final class Keys {
    private static final char SEPARATOR = '|';

    private Keys() {
    }

    /** A scenario of a contract: the key window-stats and cost records are partitioned by. */
    public record Scenario(String contractId, String scenarioId) {
        public String text() {
            return contractId + SEPARATOR + scenarioId;
        }
    }

    /** One window of a scenario, by its start in microseconds. */
    public record Window(String contractId, String scenarioId, long startUs) {
        public Window {
            if (contractId == null || scenarioId == null) {
                throw new IllegalArgumentException("a window needs a contract and a scenario");
            }
        }

        public Scenario scenario() {
            return new Scenario(contractId, scenarioId);
        }

        public String text() {
            return scenario().text() + SEPARATOR + startUs;
        }
    }

    /** A cost span of a scenario ("window", "1h", ...): the key of its cost records. */
    public record Span(String contractId, String scenarioId, String span) {
        public String text() {
            return new Scenario(contractId, scenarioId).text() + SEPARATOR + span;
        }
    }
}
