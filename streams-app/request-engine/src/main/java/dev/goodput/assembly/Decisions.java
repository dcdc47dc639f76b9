package dev.goodput.assembly;

/** What the engine decides, carried out by its caller (under the streams-app, the request assembler). */
public interface Decisions<R> {

    /** The event being processed (for a run, the chunk being joined) is refused; nothing of it joined. */
    void refuse(Refusal refusal);

    /**
     * A request is complete (all its chunks, or no on-time one can come): its slot is free already.
     * The receiver judges it and must make its id known to {@link RequestEngine#finished()} (held
     * until its window is sent, or added), so an event of it that comes again is a duplicate.
     */
    void finish(String id, RequestState state, R request);

    /**
     * Token events whose request event never came are given up on (forgotten): counted where the last
     * of them was logged.
     */
    void orphaned(String id, String contractId, String scenarioId, long lastChunkLogUs, String message);
}
