package dev.goodput.assembly;

import dev.goodput.contract.Contract;

/**
 * What the engine needs to know of a request event of type {@code R} (under the streams-app, the Avro
 * {@code RequestEvent}) and of the checks at the door, which the adapter owns: the engine decides in
 * which order they apply and what follows from them, never how an event is read.
 */
public interface RequestRules<R> {

    String id(R r);

    String contractId(R r);

    String scenarioId(R r);

    /** A warm-up request: forgotten with its chunks, neither a result nor an error. */
    boolean warmup(R r);

    long completionUs(R r);

    /** The content chunks the request streamed: it is complete when that many have joined. */
    int contentChunks(R r);

    /** Whether this computation selected the request (its run, its completion): if not, it is forgotten. */
    boolean selected(R r);

    /** The door's checks of a request event with its record's timestamp: null when it passes. */
    Refusal check(R r, long timestampMs);

    /** The door's checks of a chunk: null when it passes. */
    Refusal check(Chunk chunk);

    /** The refusal of an event of a contract this computation does not know. */
    Refusal unknownContract(String contractText);

    /** A request event from the bytes the engine kept of it ({@link RequestState}), after a restart. */
    R decode(byte[] bytes);

    /** What a finished request's verdict and windows need of its request event. */
    RequestFacts facts(R r);

    /** The objectives that judge the requests of a contract this computation knows (the contract's, or a what-if's). */
    Contract.Objectives objectives(String contractId);

    /** A quality floor that replaces the generator's quality verdict, or null to keep it. */
    Double qualityFloor();
}
