package dev.goodput.keys;

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

        /**
         * The window a key's text names ({@code contract|scenario|start}); the scenario may hold the
         * separator, the contract and the start do not.
         *
         * @throws IllegalArgumentException for a text that is not a window's key
         */
        public static Window parse(String text) {
            final int first = text.indexOf(SEPARATOR);
            final int last = text.lastIndexOf(SEPARATOR);
            if (first < 0 || last <= first) {
                throw new IllegalArgumentException("not a window key (contract|scenario|start): " + text);
            }
            try {
                return new Window(text.substring(0, first), text.substring(first + 1, last), Long.parseLong(text.substring(last + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a window key (contract|scenario|start): " + text, e);
            }
        }

        /**
         * The scenario key's text of a window key's text, what the window's records are partitioned
         * by; a text that is not a window's key is taken as it is (it goes to one partition all the same).
         */
        public static String scenarioText(String windowKey) {
            final int last = windowKey.lastIndexOf(SEPARATOR);
            return last < 0 ? windowKey : windowKey.substring(0, last);
        }
    }

    /** A cost span of a scenario ("window", "1h", ...): the key of its cost records. */
    public record Span(String contractId, String scenarioId, String span) {
        public String text() {
            return new Scenario(contractId, scenarioId).text() + SEPARATOR + span;
        }
    }
}
