package dev.goodput.records;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.TokenChunk;
import dev.goodput.avro.TokenEvent;
import dev.goodput.definitions.Micros;

/**
 * A token event is a run: the chunks of one request a producer observed within its flush interval,
 * the first in the event's own fields and the rest in {@code more_chunks}. An event written one chunk
 * at a time (another producer, or any event written before runs) is a run of one. Every reader takes
 * a run's chunks through here, so each chunk is read the same way wherever it is read.
 */
public final class TokenRuns {

    /**
     * How long this project's producers (the generator's and the proxy's sink) gather a request's
     * chunks into one run at most: a chunk reaches the log up to this much later than it came, which
     * the streams-app's grace must cover ({@code StreamsSettings.graceWarning}).
     */
    public static final Duration PRODUCER_INTERVAL = Duration.ofMillis(500);

    private TokenRuns() {
    }

    /**
     * One chunk as a run of one. Built with the all-args constructor, not the builder: the builder's
     * {@code build()} looks up the default of every field left unset ({@code more_chunks}) in a map
     * keyed by the field, whose hash walks the field's whole schema, on every event.
     */
    public static TokenEvent chunk(String contractId, String runId, String scenarioId, String requestId, int chunkIndex, ChunkKind kind,
                                   int tokens, long arrivalUs, boolean warmup) {
        return new TokenEvent(contractId, runId, scenarioId, requestId, chunkIndex, kind, tokens, Micros.toInstant(arrivalUs), warmup,
                List.of());
    }

    /** How many chunks the run holds (at least one). */
    public static int size(TokenEvent run) {
        final List<TokenChunk> more = run.getMoreChunks();
        return 1 + (more == null ? 0 : more.size());
    }

    public static int chunkIndex(TokenEvent run, int i) {
        return i == 0 ? run.getChunkIndex() : run.getMoreChunks().get(i - 1).getChunkIndex();
    }

    public static long arrivalUs(TokenEvent run, int i) {
        return Micros.of(i == 0 ? run.getArrivalTimeUs() : run.getMoreChunks().get(i - 1).getArrivalTimeUs());
    }

    public static int tokens(TokenEvent run, int i) {
        return i == 0 ? run.getTokens() : run.getMoreChunks().get(i - 1).getTokens();
    }

    public static ChunkKind kind(TokenEvent run, int i) {
        return i == 0 ? run.getKind() : run.getMoreChunks().get(i - 1).getKind();
    }

    /**
     * The run's {@code i}-th chunk as an event of its own (a run of one, the same request, run and
     * scenario): what a refusal of that chunk alone sends to the DLQ, and what readers that take
     * chunks one by one are given.
     */
    public static TokenEvent single(TokenEvent run, int i) {
        if (i == 0 && size(run) == 1) {
            return run;
        }
        return TokenEvent.newBuilder(run).setChunkIndex(chunkIndex(run, i)).setKind(kind(run, i))
                .setTokens(tokens(run, i)).setArrivalTimeUs(Micros.toInstant(arrivalUs(run, i)))
                .setMoreChunks(List.of()).build();
    }

    /** Every chunk of the run as an event of its own, in run order. */
    public static List<TokenEvent> chunks(TokenEvent run) {
        final int n = size(run);
        if (n == 1) {
            return List.of(run);
        }
        final List<TokenEvent> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(single(run, i));
        }
        return out;
    }

    /**
     * Adds a chunk, given as an event of its own of the same request, to the end of a run; the run
     * is changed in place and returned.
     */
    public static TokenEvent append(TokenEvent run, TokenEvent chunk) {
        List<TokenChunk> more = run.getMoreChunks();
        if (more == null || more.isEmpty()) {
            more = new ArrayList<>(8);
            run.setMoreChunks(more);
        }
        more.add(new TokenChunk(chunk.getChunkIndex(), chunk.getKind(), chunk.getTokens(), chunk.getArrivalTimeUs()));
        return run;
    }

    /** The arrival of the run's last chunk, in microseconds: when the run was last observed. */
    public static long lastArrivalUs(TokenEvent run) {
        return arrivalUs(run, size(run) - 1);
    }
}
