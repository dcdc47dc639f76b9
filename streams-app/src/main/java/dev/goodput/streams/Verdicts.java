package dev.goodput.streams;

import java.util.Arrays;

import dev.goodput.assembly.RequestFacts;
import dev.goodput.assembly.Verdict;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import dev.goodput.definitions.WindowTotals;
import dev.goodput.records.Generation;

/**
 * The Avro side of a verdict: what the request engine reads of a request event ({@link #facts}) and
 * the record its {@link Verdict} goes out as ({@link #record}). The judging is the engine's.
 */
final class Verdicts {

    /** The contract's statuses as the window totals count them, matched by name (a status new to one fails here). */
    static final WindowTotals.Status[] STATUS = Arrays.stream(RequestStatus.values())
            .map(st -> WindowTotals.Status.valueOf(st.name())).toArray(WindowTotals.Status[]::new);

    private Verdicts() {
    }

    static RequestFacts facts(RequestEvent r) {
        return new RequestFacts(r.getContractId(), r.getScenarioId(), STATUS[r.getStatus().ordinal()], r.getErrorClass(),
                Micros.of(r.getIntendedSendTimeUs()), Micros.of(r.getActualSendTimeUs()), Micros.of(r.getCompletionTimeUs()),
                r.getFirstChunkTimeUs() == null ? RequestFacts.NONE : Micros.of(r.getFirstChunkTimeUs()),
                r.getLastChunkTimeUs() == null ? RequestFacts.NONE : Generation.endUs(r),
                r.getFirstAnswerTimeUs() == null ? RequestFacts.NONE : Micros.of(r.getFirstAnswerTimeUs()),
                r.getOutputTokens(), r.getContentChunks(), r.getPromptTokens(),
                r.getCachedPromptTokens() == null ? -1 : r.getCachedPromptTokens(), Boolean.TRUE.equals(r.getQualityPass()),
                r.getQualityScore() == null ? Double.NaN : r.getQualityScore());
    }

    /** The verdict record of request {@code id}: what its event says of it, and how it was judged. */
    static RequestVerdict record(String id, RequestEvent r, Verdict v) {
        final WindowTotals.Outcome o = v.outcome();
        final boolean ok = v.measured();
        return RequestVerdict.newBuilder()
                .setContractId(r.getContractId()).setRunId(r.getRunId()).setScenarioId(r.getScenarioId())
                .setRequestId(id).setCompletionTimeUs(r.getCompletionTimeUs()).setStatus(r.getStatus())
                .setErrorClass(r.getErrorClass())
                .setTtftUs(ok ? o.ttftUs() : null).setTtfatUs(o.ttfatUs() != Definitions.UNDEFINED ? o.ttfatUs() : null)
                .setE2eUs(ok ? o.e2eUs() : null).setTpotUs(Double.isNaN(o.tpotUs()) ? null : o.tpotUs())
                .setDispatchLatenessUs(o.latenessUs()).setOutputTokens(r.getOutputTokens()).setSloPass(o.sloPass())
                .setTargetId(r.getTargetId()).setPromptTokens(r.getPromptTokens()).setOperation(r.getOperation())
                .setFailedObjectives(v.failedObjectives()).setQualityPass(o.qualityPass()).setGood(o.good()).build();
    }
}
