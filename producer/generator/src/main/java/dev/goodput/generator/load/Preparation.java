package dev.goodput.generator.load;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

import dev.goodput.capture.Target;
import dev.goodput.capture.TargetFacts;
import dev.goodput.capture.tokens.PromptSizer;
import dev.goodput.capture.tokens.TokenCounter;
import dev.goodput.capture.tokens.TokenCounters;
import dev.goodput.contract.load.Corpus;

/**
 * What was settled about the target before a run, and is recorded with it.
 *
 * @param sizer              how prompts are sized: the contract's tokenizer
 * @param chatTemplateTokens on chat, the tokens the target's template adds around a prompt's content; null when not
 *                           measured (completions, or a target that could not say)
 * @param targetVersion      the target's build as it reported it, or null
 */
public record Preparation(PromptSizer sizer, Integer chatTemplateTokens, String targetVersion) {

    /** The simulator's: whitespace tokens, nothing measured. */
    public static final Preparation WHITESPACE = new Preparation(PromptSizer.WHITESPACE, null, null);

    /** Samples per prompt length checked against the tokenizer before a run. */
    static final int SAMPLES = 3;

    /**
     * Settles, before a run, how prompts are sized and what the target says of itself: the contract's
     * tokenizer (refused, with the field and the fix, when unknown, missing or not served), the sizing
     * checked on sample prompts of every scenario's length, the chat template's own tokens, the build.
     *
     * @throws IllegalArgumentException for a tokenizer that cannot be used
     */
    public static Preparation of(String tokenizerName, Path contractDir, Target target, List<Scenario> scenarios,
                                 Corpus corpus, PrintStream out) {
        final TokenCounter counter = TokenCounters.forContract(tokenizerName, contractDir, TargetFacts.root(target),
                target.model(), target.headers());
        final PromptSizer sizer = target.chat() ? PromptSizer.forChat(counter) : PromptSizer.forCompletions(counter);
        // every question measured now: the dispatcher, which builds each prompt just before its send, asks nothing
        corpus.entries().forEach(e -> sizer.measure(e.prompt()));
        final List<PromptSizer.Sized> samples = new ArrayList<>();
        final TreeSet<Integer> lengths = new TreeSet<>();
        scenarios.forEach(s -> lengths.add(s.promptTokens()));
        for (int length : lengths) {
            for (int i = 0; i < SAMPLES; i++) {
                samples.add(sizer.build(corpus.get(i).prompt(), length, 7919L * i + length));
            }
        }
        final int deviation = sizer.deviation(samples);
        final Integer template = target.chat()
                ? TargetFacts.chatTemplateTokens(target, counter, samples.get(0).text()) : null;
        final String version = TargetFacts.version(target);
        out.printf(Locale.ROOT, "prompts: sized in %s tokens%s; %d sample(s) of lengths %s within %d token(s)%s%s%n",
                counter.name(), target.chat() ? " (chat content)" : " (with the engine's special tokens)",
                samples.size(), lengths, deviation,
                template == null ? "" : "; the chat template adds " + template + " token(s)",
                deviation > 1 ? " (WARNING: this tokenizer does not add up word by word: prompt lengths are off)" : "");
        return new Preparation(sizer, template, version);
    }
}
