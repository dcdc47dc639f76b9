package dev.goodput.records;

import java.util.Collection;
import java.util.Set;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Histograms;
import dev.goodput.definitions.Micros;

/**
 * The checks a raw event passes at the door, before it touches any state or figure: the
 * streams-app sends an event that fails one to the DLQ with the reason named here, instead of
 * stopping (a chunk index of -1 or two billion did) or yielding a negative or 56-year TTFT; the
 * report and replay leave it out of every figure, account and memory with the same reason. One
 * function, below both, so that what one refuses the other never counts.
 */
public final class DoorChecks {

    /** A refusal: the DLQ reason and the one-line message. */
    public record Problem(String reason, String message) {
    }

    /** The chunk bound when no contract is known: only negative counts are refused. */
    public static final int NO_CAP = Integer.MAX_VALUE / 4;

    private DoorChecks() {
    }

    /**
     * The most chunks a request may have: twice the largest output cap of the contracts, plus 16. A
     * chunk carries at least one token, so a server that obeys the cap stays well inside; the slack
     * leaves room for one that overshoots it, and the bound keeps a corrupt index from sizing state.
     */
    public static int maxChunks(Collection<Contract> contracts) {
        final int cap = contracts.stream().mapToInt(Contract::outputCapTokens).max().orElse(0);
        return (int) Math.min(Integer.MAX_VALUE / 4, 2L * cap + 16);
    }

    /**
     * How far an event's own time may be ahead of its record's log time (the broker's append time on
     * the raw topics) before it is refused: clocks of generators and brokers synchronised by NTP
     * differ by milliseconds; a generator whose clock is minutes fast would otherwise move event
     * time for every other record of its partition and make them all late.
     */
    public static final long MAX_FUTURE_SKEW_US = 60_000_000L;

    /** Why an event dated {@code eventUs} cannot be taken from a record the log stamped {@code recordMs}, or null. */
    public static Problem future(long eventUs, long recordMs) {
        final long aheadUs = eventUs - recordMs * 1_000;
        if (recordMs > 0 && aheadUs > MAX_FUTURE_SKEW_US) {
            return new Problem("from_the_future", "dated " + aheadUs / 1_000_000 + " s after the log received it (more than "
                    + MAX_FUTURE_SKEW_US / 1_000_000 + " s: the sender's clock is fast)");
        }
        return null;
    }

    /** Why a token event cannot be taken: its chunk index, then its time against its log time; or null. */
    public static Problem token(int chunkIndex, long arrivalUs, long recordMs, int maxChunks) {
        final Problem p = chunkIndex(chunkIndex, maxChunks);
        return p != null ? p : future(arrivalUs, recordMs);
    }

    /** Why a token event's chunk index cannot be used, or null. */
    public static Problem chunkIndex(int index, int maxChunks) {
        if (index < 0 || index >= maxChunks) {
            return new Problem("chunk_index_out_of_range", "chunk_index " + index + " is outside 0.." + (maxChunks - 1)
                    + " (twice the contracts' output cap)");
        }
        return null;
    }

    /** Why an event of contract {@code contractId} cannot be taken by a reader started with {@code known}, or null. */
    public static Problem contract(String contractId, Set<String> known) {
        return known.contains(contractId) ? null : unknownContract(contractId);
    }

    /** The refusal of an event whose contract the reader was not started with. */
    public static Problem unknownContract(String contractText) {
        return new Problem("unknown_contract", "contract " + contractText + " is not one this app was started with");
    }

    /**
     * Why a request event cannot be taken by a reader of the contracts {@code known}: its contract,
     * then impossible times or counts, then its time against its log time; or null. The streams-app
     * and the report both call this, so a report never counts what the app refused.
     */
    public static Problem request(RequestEvent r, long recordMs, int maxChunks, Set<String> known) {
        final Problem c = contract(r.getContractId(), known);
        return c != null ? c : request(r, recordMs, maxChunks);
    }

    /** Why a request event cannot be taken: impossible times or counts, then its time against its log time; or null. */
    public static Problem request(RequestEvent r, long recordMs, int maxChunks) {
        final Problem p = request(r, maxChunks);
        return p != null ? p : future(Micros.of(r.getCompletionTimeUs()), recordMs);
    }

    /** Why a request event's times or counts are impossible, or null. */
    public static Problem request(RequestEvent r, int maxChunks) {
        final long intended = Micros.of(r.getIntendedSendTimeUs());
        final long completion = Micros.of(r.getCompletionTimeUs());
        if (r.getContentChunks() < 0 || r.getContentChunks() > maxChunks) {
            return new Problem("content_chunks_out_of_range", "content_chunks " + r.getContentChunks() + " is outside 0.." + maxChunks);
        }
        if (completion < intended) {
            return new Problem("completed_before_send", "completed " + (intended - completion) + " us before its intended send");
        }
        if (completion - intended > Histograms.MAX_REQUEST_LATENCY_US) {
            return new Problem("duration_out_of_range", "took " + (completion - intended) / 1_000_000 + " s from intended send to "
                    + "completion, more than the " + Histograms.MAX_REQUEST_LATENCY_US / 1_000_000 + " s any latency here can hold");
        }
        if (r.getStatus() == RequestStatus.OK && r.getFirstChunkTimeUs() != null && r.getLastChunkTimeUs() != null) {
            final long first = Micros.of(r.getFirstChunkTimeUs());
            final long last = Micros.of(r.getLastChunkTimeUs());
            if (first < intended) {
                return new Problem("first_chunk_before_send", "first chunk " + (intended - first) + " us before the intended send");
            }
            if (last < first) {
                return new Problem("chunks_out_of_order", "last chunk " + (first - last) + " us before the first");
            }
            if (last > completion) {
                return new Problem("chunk_after_completion", "last chunk " + (last - completion) + " us after completion");
            }
            if (r.getLastChoiceTimeUs() != null && Micros.of(r.getLastChoiceTimeUs()) > completion) {
                return new Problem("chunk_after_completion", "stream finish " + (Micros.of(r.getLastChoiceTimeUs()) - completion)
                        + " us after completion");
            }
        }
        return null;
    }

}
