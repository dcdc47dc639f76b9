package dev.goodput.capture.tokens;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sizes prompts to a token count in the contract's tokenizer. A prompt is filler words followed by
 * the corpus question; each vocabulary word's cost in that tokenizer is measured once (in the middle
 * of a text, and at its start, where the engine's special tokens come too), and so is each
 * question's, so a prompt is sized by adding costs, with no tokenizer call per request. A word that
 * would overshoot is replaced by the cheapest word. With SentencePiece and with pre-tokenized BPE
 * vocabularies a word's tokens do not merge with its neighbours', so the sum is the count;
 * {@link #deviation} checks that on sample prompts before a run.
 */
public final class PromptSizer {

    static final String[] VOCABULARY = (
            "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
            + "quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cedar dune ember "
            + "fjord granite harbor island jasper kelp lagoon meadow nectar orchid pebble quartz river summit "
            + "timber umber valley willow yarrow zephyr").split(" ");

    /** The simulator's: one token per word. */
    public static final PromptSizer WHITESPACE = new PromptSizer(TokenCounter.WHITESPACE, false, false);

    /** A sized prompt and its length in the tokenizer. */
    public record Sized(String text, int tokens) {
    }

    private final TokenCounter counter;
    private final boolean special;
    /** Each word's tokens in the middle of a text, and at its start (with the special tokens, if counted). */
    private final int[] mid;
    private final int[] lead;
    /** The cheapest word in the middle of a text: what fills the last tokens. */
    private final int cheapest;
    /** Every prompt starts with the same word: see {@link #forChat}. */
    private final boolean fixedLead;
    private final Map<String, int[]> questions = new ConcurrentHashMap<>();

    /** Completions prompts, counted with the special tokens the engine adds (a BOS token, say). */
    public static PromptSizer forCompletions(TokenCounter counter) {
        return new PromptSizer(counter, true, false);
    }

    /**
     * Chat content, counted without special tokens: the template's own are measured apart. Inside a
     * template the content's first word follows the template's text, where it may split otherwise
     * than at the start of a text; every prompt starts with the same word, so that the template's
     * measured tokens hold for every prompt.
     */
    public static PromptSizer forChat(TokenCounter counter) {
        return new PromptSizer(counter, false, counter != TokenCounter.WHITESPACE);
    }

    PromptSizer(TokenCounter counter, boolean special, boolean fixedLead) {
        this.counter = counter;
        this.special = special;
        this.fixedLead = fixedLead;
        this.mid = new int[VOCABULARY.length];
        this.lead = new int[VOCABULARY.length];
        final String anchor = VOCABULARY[0];
        final int anchorTokens = counter.count(anchor, false);
        int best = 0;
        for (int i = 0; i < VOCABULARY.length; i++) {
            mid[i] = Math.max(1, counter.count(anchor + " " + VOCABULARY[i], false) - anchorTokens);
            lead[i] = counter.count(VOCABULARY[i], special);
            if (mid[i] < mid[best]) {
                best = i;
            }
        }
        this.cheapest = best;
    }

    public String tokenizer() {
        return counter.name();
    }

    public TokenCounter counter() {
        return counter;
    }

    /** Whether counts include the engine's special tokens (completions) or not (chat content). */
    public boolean special() {
        return special;
    }

    /** {tokens alone (with special tokens, if counted), tokens after filler}. */
    private int[] question(String q) {
        return questions.computeIfAbsent(q, k -> new int[] {counter.count(k, special),
                counter.count(VOCABULARY[0] + " " + k, false) - counter.count(VOCABULARY[0], false)});
    }

    /**
     * Measures a question's cost now, so that building its prompts later asks the tokenizer nothing:
     * a run measures every corpus question before it starts, off the timed path (the target's
     * /tokenize is an HTTP call).
     */
    public void measure(String question) {
        question(question);
    }

    /** A prompt of {@code tokens} tokens ending with the question (or the question alone, if it is longer). */
    public Sized build(String question, int tokens, long prefixSeed) {
        return build(question, tokens, new long[0], 1, prefixSeed);
    }

    /**
     * A prompt of {@code tokens} tokens ending with the question, whose filler starts with one block of
     * {@code blockTokens} tokens per block id, each block's words drawn from its id: two prompts with the
     * same leading ids share that prefix word for word (a trace's prefix sharing). Filler past the blocks is
     * drawn from {@code prefixSeed}.
     */
    public Sized build(String question, int tokens, long[] blockIds, int blockTokens, long prefixSeed) {
        final int[] q = question(question);
        final int fill = tokens - q[1];
        if (fill <= 0) {
            return new Sized(question, q[0]);
        }
        final StringBuilder sb = new StringBuilder(tokens * 7);
        final int[] written = {0};
        for (long id : blockIds) {
            final SplittableRandom block = new SplittableRandom(id);
            final int end = Math.min(fill, written[0] + blockTokens);
            while (written[0] < end && append(sb, written, end, block)) {
                // words of this block until its share is filled
            }
        }
        final SplittableRandom random = new SplittableRandom(prefixSeed);
        while (written[0] < fill && append(sb, written, fill, random)) {
            // filler words until the prompt's length
        }
        return new Sized(sb.append(question).toString(), written[0] + q[1]);
    }

    /** Appends one word that fits before {@code end}; false when none fits (the prompt stays a token short). */
    private boolean append(StringBuilder sb, int[] written, int end, SplittableRandom random) {
        final boolean first = sb.length() == 0;
        int w = first && fixedLead ? cheapest : random.nextInt(VOCABULARY.length);
        int cost = first ? lead[w] : mid[w];
        if (written[0] + cost > end) {
            w = cheapest;
            cost = first ? lead[w] : mid[w];
            if (written[0] + cost > end) {
                return false;
            }
        }
        sb.append(VOCABULARY[w]).append(' ');
        written[0] += cost;
        return true;
    }

    /** The largest difference, over the samples, between a prompt's sized length and the tokenizer's count of it. */
    public int deviation(List<Sized> samples) {
        return samples.stream().mapToInt(s -> Math.abs(counter.count(s.text(), special) - s.tokens())).max().orElse(0);
    }

    @Override
    public String toString() {
        return "PromptSizer[" + counter.name() + (special ? ", with special tokens" : "") + ", word costs "
                + Arrays.stream(mid).summaryStatistics() + "]";
    }
}
