package dev.goodput.capture;

import dev.goodput.capture.tokens.PromptSizer;

/**
 * The whitespace tokenizer ({@code goodput/whitespace}: one token per white-space separated word),
 * and prompts sized in it ({@link PromptSizer} sizes them in any tokenizer). A prompt is a prefix of
 * filler words followed by the corpus question. Cold cache: every request gets a unique prefix, so
 * prefix caches miss; warm cache: every request of a scenario shares one prefix, so they hit.
 */
public final class Prompts {
    private Prompts() {
    }

    /** Tokens of a text under the whitespace tokenizer. */
    public static int countTokens(CharSequence text) {
        int n = 0;
        boolean inWord = false;
        for (int i = 0; i < text.length(); i++) {
            final boolean ws = Character.isWhitespace(text.charAt(i));
            if (!ws && !inWord) {
                n++;
            }
            inWord = !ws;
        }
        return n;
    }

    /**
     * A prompt of exactly {@code tokens} whitespace tokens (or the question alone, if it is longer) ending with
     * the question.
     *
     * @param prefixSeed the seed of the filler prefix: shared by a scenario when warm, unique per request when cold
     */
    public static String build(String question, int tokens, long prefixSeed) {
        return PromptSizer.WHITESPACE.build(question, tokens, prefixSeed).text();
    }

    /** As {@link PromptSizer#build(String, int, long[], int, long)}, in whitespace tokens. */
    public static String build(String question, int tokens, long[] blockIds, int blockTokens, long prefixSeed) {
        return PromptSizer.WHITESPACE.build(question, tokens, blockIds, blockTokens, prefixSeed).text();
    }
}
