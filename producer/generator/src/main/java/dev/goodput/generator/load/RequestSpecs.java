package dev.goodput.generator.load;

import dev.goodput.capture.RequestSpec;
import dev.goodput.capture.tokens.PromptSizer;
import dev.goodput.contract.load.Corpus;

/**
 * What each request of a scenario asks: the corpus question, sized to the scenario's prompt length
 * with filler whose sharing is the scenario's cache condition (a unique filler, one filler for the
 * scenario, a common prefix of a share of the tokens, or a trace's shared blocks), its output cap,
 * and a session's history for a turn.
 */
final class RequestSpecs {
    private final LoadRun.Settings s;
    private final String idPrefix;

    RequestSpecs(LoadRun.Settings s, String idPrefix) {
        this.s = s;
        this.idPrefix = idPrefix;
    }

    /** The {@code seq}-th request, intended at {@code intendedUs}; {@code turn} is its session's turn, or null. */
    RequestSpec of(long seq, long intendedUs, boolean warmup, SessionSchedule.Turn turn) {
        final Corpus.Entry entry = s.corpus().get(seq);
        // cold: a unique filler per request, so prefix caches miss; warm: one filler per scenario
        final long unique = (s.identity().runId() + "/" + idPrefix + seq).hashCode() * 31L + seq;
        final long scenarioSeed = s.scenarioId().hashCode();
        final long prefixSeed = "warm".equals(s.scenario().cache()) ? scenarioSeed : unique;
        final Trace.Entry traced = s.trace() == null ? null : s.trace().entry(seq);
        final int promptTokens = traced != null && traced.inputTokens() != null ? traced.inputTokens() : s.scenario().promptTokens();
        final int outputTokens = traced != null && traced.outputTokens() != null ? Math.max(1, traced.outputTokens())
                : s.scenario().outputTokens();
        final PromptSizer sizer = s.preparation().sizer();
        final Double shared = s.scenario().sharedFraction();
        final PromptSizer.Sized prompt;
        if (traced != null && traced.hashIds() != null) {
            // a trace's shared block ids become shared prompt blocks: requests with the same leading ids share that prefix
            prompt = sizer.build(entry.prompt(), promptTokens, traced.hashIds(), Trace.MOONCAKE_BLOCK_TOKENS, prefixSeed);
        } else if (shared != null && shared > 0) {
            // sharedN: the first N % of the tokens one block common to the scenario (within the filler: the question ends it)
            prompt = sizer.build(entry.prompt(), promptTokens, new long[] {scenarioSeed}, (int) Math.round(shared * promptTokens),
                    prefixSeed);
        } else {
            prompt = sizer.build(entry.prompt(), promptTokens, prefixSeed);
        }
        // an exact answer length where the target takes one (ignore_eos, vLLM's min_tokens): only for a trace's lengths
        final Integer minTokens = traced != null && traced.outputTokens() != null && s.identity().decoding().ignoreEos() ? outputTokens : null;
        return turn == null
                ? new RequestSpec(idPrefix + seq, s.scenarioId(), prompt.text(), prompt.tokens(), entry.expected(), outputTokens, minTokens,
                        intendedUs, warmup)
                : new RequestSpec(idPrefix + seq, s.scenarioId(), prompt.text(), prompt.tokens(), entry.expected(), outputTokens, minTokens,
                        intendedUs, warmup, turn.history(), turn.sessionId(), turn.turn());
    }
}
