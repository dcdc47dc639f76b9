package dev.goodput.assembly;

/**
 * The chunk being joined, as the adapter read it (under the streams-app, one chunk of a token event's
 * run). Held by the caller and read during one {@link RequestEngine#chunk} call only.
 */
public interface Chunk {

    /** Of a warm-up request or a run this computation did not select: joins nothing, refused for nothing. */
    boolean skipped();

    String requestId();

    int chunkIndex();

    /** When the chunk arrived at the client, in µs of event time. */
    long arrivalUs();

    /** Its record's timestamp in ms (the door's check of a time far in the future). */
    long timestampMs();

    /** Its contract's id when the contract is one this computation knows, else null. */
    String knownContract();

    /** Its contract as written, for a refusal's message. */
    String contractText();

    boolean contractIs(String contractId);

    String scenarioId();
}
