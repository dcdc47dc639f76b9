package dev.goodput.assembly;

import dev.goodput.assembly.time.LogClock;
import dev.goodput.definitions.Micros;

/**
 * Joins each request's token events and its request event, judged by the log clocks alone: which
 * event joins, which is refused and why (late, duplicate, unknown or mixed contract, out of order,
 * checks at the door), and when a request is complete. The engine feeds it events and carries out
 * what it decides; a refused event is never half-joined.
 */
final class RequestJoin<R> {

    /** What the join decides, carried out by the engine. */
    interface Outcomes<R> {
        void refuse(Refusal refusal);

        /** A complete request; {@code event} is its request event, or null to decode it from the state. */
        void finish(String id, RequestState s, R event);

        /** Token events given up on: their request event came after the orphan expiry (forgets them). */
        void orphaned(String id, RequestState s);
    }

    /** Ids of requests refused as late are kept with the finished ones, under this prefix. */
    private static final String REFUSED_PREFIX = "!";
    /** Marks a token event {@link #refuseToken} refused. */
    private static final RequestState REFUSED = new RequestState();

    private final EngineSettings config;
    private final RequestRules<R> rules;
    private final LogClock clock;
    private final InflightRequests inflight;
    private final FinishedRequests finished;
    private final Outcomes<R> outcomes;

    RequestJoin(EngineSettings config, RequestRules<R> rules, LogClock clock, InflightRequests inflight,
                FinishedRequests finished, Outcomes<R> outcomes) {
        this.config = config;
        this.rules = rules;
        this.clock = clock;
        this.inflight = inflight;
        this.finished = finished;
        this.outcomes = outcomes;
    }

    /**
     * One token event, however it was read: checked at the door, then against its request (late,
     * refused with a late request, duplicate, contract), then joined to it in chunk order;
     * {@code logUs} is its log time.
     */
    void token(Chunk token, long logUs) {
        if (token.skipped()) {
            return;
        }
        final String id = token.requestId();
        final long arrival = token.arrivalUs();
        final Refusal bad = rules.check(token);
        if (bad != null) {
            outcomes.refuse(bad);
            return;
        }
        RequestState s = inflight.get(id);
        if (s == null || clock.late(arrival, logUs)) {
            s = refuseToken(id, s, arrival, logUs);
            if (s == REFUSED) {
                return;
            }
        }
        if (s == null) {
            final String contractId = token.knownContract();
            if (contractId == null) {
                outcomes.refuse(rules.unknownContract(token.contractText()));
                return;
            }
            s = new RequestState();
            s.contractId = contractId;
            s.scenarioId = token.scenarioId();
            inflight.add(id, s);
        } else if (!token.contractIs(s.contractId)) {
            if (token.knownContract() == null) {
                outcomes.refuse(rules.unknownContract(token.contractText()));
            } else {
                outcomes.refuse(refusal("mixed_contracts", "request " + id + " has events of contracts " + s.contractId
                        + " and " + token.contractText()));
            }
            return;
        } else if (!s.dirty) {
            inflight.touch(id);
        }
        s.dirty = true;
        final int chunk = token.chunkIndex();
        if (s.outOfOrder(chunk, arrival)) {
            outcomes.refuse(refusal("chunks_out_of_order", "chunk " + chunk + " of request " + id
                    + " arrived at " + Micros.toInstant(arrival) + ", out of order with its neighbours"));
            return;
        }
        if (!s.addChunk(chunk, arrival, logUs)) {
            outcomes.refuse(refusal("duplicate", "chunk " + chunk + " of request " + id + " came twice"));
            return;
        }
        if (s.complete()) {
            outcomes.finish(id, s, null);
        }
    }

    /**
     * The checks of a token event against its request, in an order that makes the outcome a function
     * of the log alone: a late token event (its own log time) is refused and never joins; a request
     * refused as late takes its other token events with it; one of a finished request is a duplicate (a
     * request finishes only with all its chunks, or once no on-time token event of it can come).
     * Returns the request's state (null when there is none yet) or {@link #REFUSED}.
     */
    private RequestState refuseToken(String id, RequestState s, long arrivalUs, long logUs) {
        if (clock.late(arrivalUs, logUs)) {
            outcomes.refuse(refusal("late", "a token event of request " + id + " (chunk at " + Micros.toInstant(arrivalUs)
                    + ") after its window closed (log time " + Micros.toInstant(logUs) + ", grace " + config.grace() + ")"));
            return REFUSED;
        }
        if (s == null && finished.contains(REFUSED_PREFIX + id)) {
            return REFUSED; // its request event is in the DLQ as late, and the request with it
        }
        if (s == null && finished.contains(id)) {
            outcomes.refuse(refusal("duplicate", "a token event of request " + id + ", which has finished"));
            return REFUSED;
        }
        return s;
    }

    /**
     * A request event, decoded, with the bytes it came in (kept while it waits for chunks), its
     * record's timestamp and its log time.
     */
    void request(R r, byte[] bytes, long timestampMs, long logUs) {
        final String id = rules.id(r);
        RequestState existing = inflight.get(id);
        if (existing != null && existing.requestBytes == null
                && existing.lastChunkLogUs + config.orphanExpiryUs() <= logUs) {
            // its token events stopped longer ago than the orphan expiry: they are given up on, as a
            // sweep would have if it had come first (a sweep needs both clocks past that, and the request
            // clock is past it only from this record on), before anything else becomes of the event
            outcomes.orphaned(id, existing);
            existing = null;
        }
        if (rules.warmup(r)) {
            inflight.forget(id);
            return;
        }
        final Refusal bad = rules.check(r, timestampMs);
        if (bad != null) {
            outcomes.refuse(bad);
            inflight.forget(id);
            return;
        }
        final long completion = rules.completionUs(r);
        if (!rules.selected(r)) {
            // not part of what this (re)computation selected: neither a result nor an error
            inflight.forget(id);
            return;
        }
        // lateness first, then duplicates: ids of finished requests are forgotten only once any event
        // of theirs would be late, so the reason is the same whenever the id is forgotten
        if (clock.late(completion, logUs)) {
            outcomes.refuse(refusal("late", "completed at " + Micros.toInstant(completion) + ", after its window closed "
                    + "(log time " + Micros.toInstant(logUs) + ", grace " + config.grace() + ")"));
            final RequestState dropped = inflight.get(id);
            if (dropped == null || dropped.requestBytes == null) {
                inflight.forget(id);
                // its token events still to come join nothing: dropped with it, whichever topic is read first
                finished.add(REFUSED_PREFIX + id, completion);
            }
            return;
        }
        if (finished.contains(id)) {
            outcomes.refuse(refusal("duplicate", "request " + id + " has finished already"));
            return;
        }
        if (existing != null && existing.requestBytes != null) {
            outcomes.refuse(refusal("duplicate", "request " + id + " has a request event already"));
            return;
        }
        if (existing != null && !existing.contractId.equals(rules.contractId(r))) {
            outcomes.refuse(refusal("mixed_contracts", "request " + id + " has events of contracts " + existing.contractId
                    + " and " + rules.contractId(r)));
            inflight.forget(id);
            return;
        }
        final RequestState s = existing != null ? existing : new RequestState();
        s.contractId = rules.contractId(r);
        s.scenarioId = rules.scenarioId(r);
        s.requestBytes = bytes;
        s.request = r;
        s.completionUs = completion;
        s.expectedChunks = rules.contentChunks(r);
        s.requestLogUs = logUs;
        if (s.complete()) {
            outcomes.finish(id, s, r);
        } else {
            inflight.await(id, s);
        }
    }

    private static Refusal refusal(String reason, String message) {
        return new Refusal(reason, message);
    }
}
