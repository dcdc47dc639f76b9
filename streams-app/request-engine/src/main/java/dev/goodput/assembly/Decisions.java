package dev.goodput.assembly;

/** What the engine decides, carried out by its caller (under the streams-app, the request assembler). */
public interface Decisions<R> {

    /** The event being processed (for a run, the chunk being joined) is refused; nothing of it joined. */
    void refuse(Refusal refusal);

    /**
     * A request is complete (all its chunks, or no on-time one can come) and judged: its slot is free,
     * and once this returns its outcome is in its windows' partial aggregates and its id among the
     * finished ones, so an event of it that comes again is a duplicate. {@code state} holds the chunks
     * that joined.
     */
    void verdict(String id, R request, RequestState state, Verdict verdict);

    /**
     * Token events whose request event never came are given up on (forgotten): counted where the last
     * of them was logged ({@link RequestEngine#countRefused}, if the caller knows the contract).
     */
    void orphaned(String id, String contractId, String scenarioId, long lastChunkLogUs, String message);

    /** A window's partial aggregate, handed over by a heartbeat (to the window's merger); the engine forgets it. */
    void partial(WindowAgg partial);

    /** The watermark moved: nothing earlier than it minus the grace will be counted by this partition. */
    void watermark(long watermarkUs);
}
