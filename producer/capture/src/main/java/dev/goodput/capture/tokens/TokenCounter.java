package dev.goodput.capture.tokens;

/**
 * Counts tokens as the model's tokenizer does: the contract's {@code tokenizer.name} decides which
 * ({@link TokenCounters#forContract}).
 */
public interface TokenCounter extends AutoCloseable {

    /** As recorded with a run: {@code goodput/whitespace}, {@code server} or the tokenizer file's name. */
    String name();

    /**
     * Tokens of a text.
     *
     * @param special with the special tokens the engine adds to a completions prompt (a BOS token, say)
     */
    int count(String text, boolean special);

    @Override
    default void close() {
    }

    /** One token per white-space separated word: the simulator's tokenizer. */
    TokenCounter WHITESPACE = new TokenCounter() {
        @Override
        public String name() {
            return TokenCounters.WHITESPACE;
        }

        @Override
        public int count(String text, boolean special) {
            return dev.goodput.capture.Prompts.countTokens(text);
        }
    };
}
