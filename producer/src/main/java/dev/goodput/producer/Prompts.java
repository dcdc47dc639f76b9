package dev.goodput.producer;

import java.util.SplittableRandom;

/**
 * Sizes prompts to a token count with the contract's whitespace tokenizer ({@code goodput/whitespace}:
 * one token per white-space separated word). A prompt is a prefix of filler words followed by the
 * corpus question. Cold cache: every request gets a unique prefix, so prefix caches miss; warm
 * cache: every request of a scenario shares one prefix, so they hit.
 */
public final class Prompts {
    private static final String[] VOCABULARY = (
            "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
            + "quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cedar dune ember "
            + "fjord granite harbor island jasper kelp lagoon meadow nectar orchid pebble quartz river summit "
            + "timber umber valley willow yarrow zephyr").split(" ");

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
     * A prompt of exactly {@code tokens} tokens (or the question alone, if it is longer) ending with
     * the question.
     *
     * @param prefixSeed the seed of the filler prefix: shared by a scenario when warm, unique per request when cold
     */
    public static String build(String question, int tokens, long prefixSeed) {
        return build(question, tokens, new long[0], 1, prefixSeed);
    }

    /**
     * A prompt of exactly {@code tokens} tokens ending with the question, whose filler starts with one
     * block of {@code blockTokens} words per block id, each block's words drawn from its id: two
     * prompts with the same leading ids share that prefix word for word (a trace's prefix sharing).
     * Filler past the blocks is drawn from {@code prefixSeed}.
     */
    public static String build(String question, int tokens, long[] blockIds, int blockTokens, long prefixSeed) {
        final int fill = tokens - countTokens(question);
        if (fill <= 0) {
            return question;
        }
        final StringBuilder sb = new StringBuilder(tokens * 7);
        int written = 0;
        for (long id : blockIds) {
            final SplittableRandom block = new SplittableRandom(id);
            for (int i = 0; i < blockTokens && written < fill; i++, written++) {
                sb.append(VOCABULARY[block.nextInt(VOCABULARY.length)]).append(' ');
            }
        }
        final SplittableRandom random = new SplittableRandom(prefixSeed);
        for (; written < fill; written++) {
            sb.append(VOCABULARY[random.nextInt(VOCABULARY.length)]).append(' ');
        }
        return sb.append(question).toString();
    }
}
