package dev.goodput.assembly;

import java.util.List;

import dev.goodput.contract.Contract;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.WindowTotals;

/**
 * A finished request judged: its measurements and verdicts as its window adds them up
 * ({@link WindowTotals.Outcome}), and the objectives it failed. Every figure comes from a
 * {@link Definitions} function; {@link #of} only picks which apply.
 *
 * @param measured whether its latencies were measured ({@link RequestFacts#measured}); when not, they are
 *                 {@link Definitions#UNDEFINED} (TPOT NaN)
 */
public record Verdict(boolean measured, WindowTotals.Outcome outcome, List<String> failedObjectives) {

    /**
     * @param seenChunks the chunks of it that joined (a chunk refused at the door or in the join, or
     *                   never come, is missing)
     * @param objectives the objectives that judge it (the contract's, or a what-if's)
     * @param floor      a quality floor replacing the generator's verdict, or null
     */
    public static Verdict of(RequestFacts r, int seenChunks, Contract.Objectives objectives, Double floor) {
        final boolean ok = r.measured();
        final long intended = r.intendedUs();
        final long ttft = ok ? Definitions.ttft(intended, r.firstChunkUs()) : Definitions.UNDEFINED;
        final long e2e = ok ? Definitions.e2e(intended, r.generationEndUs()) : Definitions.UNDEFINED;
        final long ttfat = ok && r.firstAnswerUs() != RequestFacts.NONE
                ? Definitions.timeToFirstAnswer(intended, r.firstAnswerUs()) : Definitions.UNDEFINED;
        final double tpot = ok ? Definitions.tpot(e2e, ttft, r.outputTokens()) : Double.NaN;
        final int missing = ok ? Definitions.missingChunks(r.contentChunks(), seenChunks) : 0;
        final List<String> failed = Definitions.failedObjectives(ok, missing, ttft, tpot, e2e, objectives);
        final boolean sloPass = Definitions.sloPass(failed);
        final boolean qualityPass = ok && (floor == null ? r.qualityPass()
                : !Double.isNaN(r.qualityScore()) && r.qualityScore() >= floor);
        final boolean good = Definitions.good(sloPass, qualityPass);
        final long lateness = Definitions.dispatchLateness(intended, r.actualSendUs());
        return new Verdict(ok, new WindowTotals.Outcome(r.status(), r.errorClass(), ttft, ttfat, e2e, tpot,
                r.outputTokens(), lateness, sloPass, qualityPass, good), failed);
    }
}
