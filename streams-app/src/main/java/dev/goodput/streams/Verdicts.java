package dev.goodput.streams;

import java.util.Arrays;
import java.util.List;

import dev.goodput.assembly.RequestState;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import dev.goodput.definitions.WindowTotals;
import dev.goodput.records.Generation;

/**
 * A finished request's verdict and the sample its window aggregates take from it. Every figure
 * comes from a {@link Definitions} function; this only reads the request event and builds records.
 */
final class Verdicts {

    /** The verdict record and the sample for the partition's partial aggregate. */
    record Outcome(RequestVerdict verdict, Sample.Request sample) {
    }

    /** The contract's statuses as the window totals count them, matched by name (a status new to one fails here). */
    static final WindowTotals.Status[] STATUS = Arrays.stream(RequestStatus.values())
            .map(st -> WindowTotals.Status.valueOf(st.name())).toArray(WindowTotals.Status[]::new);

    private Verdicts() {
    }

    /**
     * @param s           the request's chunks (their gaps count only for an OK request)
     * @param objectives  the objectives that judge it (the contract's, or a what-if's)
     * @param floor       a quality floor replacing the one the generator applied, or null
     */
    static Outcome of(String id, RequestEvent r, RequestState s, Contract.Objectives objectives, Double floor,
                      int partition, long watermark) {
        final boolean ok = r.getStatus() == RequestStatus.OK && r.getFirstChunkTimeUs() != null
                && r.getLastChunkTimeUs() != null;
        final long intended = Micros.of(r.getIntendedSendTimeUs());
        final long ttft = ok ? Definitions.ttft(intended, Micros.of(r.getFirstChunkTimeUs())) : Definitions.UNDEFINED;
        final long e2e = ok ? Definitions.e2e(intended, Generation.endUs(r)) : Definitions.UNDEFINED;
        final long ttfat = ok && r.getFirstAnswerTimeUs() != null
                ? Definitions.timeToFirstAnswer(intended, Micros.of(r.getFirstAnswerTimeUs())) : Definitions.UNDEFINED;
        final double tpot = ok ? Definitions.tpot(e2e, ttft, r.getOutputTokens()) : Double.NaN;
        // a chunk refused at the door or in the join (out of order, late, out of range), or never come
        final int missing = ok ? Definitions.missingChunks(r.getContentChunks(), s.seenCount()) : 0;
        final List<String> failed = Definitions.failedObjectives(ok, missing, ttft, tpot, e2e, objectives);
        final boolean sloPass = Definitions.sloPass(failed);
        final boolean qualityPass = ok && (floor == null ? Boolean.TRUE.equals(r.getQualityPass())
                : r.getQualityScore() != null && r.getQualityScore() >= floor);
        final boolean good = Definitions.good(sloPass, qualityPass);
        final long lateness = Definitions.dispatchLateness(intended, Micros.of(r.getActualSendTimeUs()));
        final RequestVerdict verdict = RequestVerdict.newBuilder()
                .setContractId(r.getContractId()).setRunId(r.getRunId()).setScenarioId(r.getScenarioId())
                .setRequestId(id).setCompletionTimeUs(r.getCompletionTimeUs()).setStatus(r.getStatus())
                .setErrorClass(r.getErrorClass())
                .setTtftUs(ok ? ttft : null).setTtfatUs(ttfat != Definitions.UNDEFINED ? ttfat : null)
                .setE2eUs(ok ? e2e : null).setTpotUs(Double.isNaN(tpot) ? null : tpot)
                .setDispatchLatenessUs(lateness).setOutputTokens(r.getOutputTokens()).setSloPass(sloPass)
                .setTargetId(r.getTargetId()).setPromptTokens(r.getPromptTokens()).setOperation(r.getOperation())
                .setFailedObjectives(failed).setQualityPass(qualityPass).setGood(good).build();
        final long[][] kept = ok ? s.gaps() : new long[][] {new long[0], new long[0]};
        final WindowTotals.Outcome outcome = new WindowTotals.Outcome(STATUS[r.getStatus().ordinal()], r.getErrorClass(),
                ttft, ttfat, e2e, tpot, r.getOutputTokens(), lateness, sloPass, qualityPass, good);
        final Sample.Request sample = new Sample.Request(partition, watermark, id, r.getContractId(), r.getScenarioId(),
                Micros.of(r.getCompletionTimeUs()), intended, s.hold(), s.requestLogUs(), r.getPromptTokens(),
                ok && r.getCachedPromptTokens() != null ? r.getCachedPromptTokens() : -1, outcome, kept[0], kept[1]);
        return new Outcome(verdict, sample);
    }
}
