package dev.goodput.spans;

import java.time.Instant;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RunSummary;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Micros;

/**
 * What a span run took, told at its end as the run summary a generator publishes per scenario, so the
 * report reads an observed run as complete: its arrival says the traffic was observed server-side,
 * and it knows no schedule (no rate, no concurrency), no dispatch lateness and no generator CPU.
 */
final class SpanRunTally {
    /** The generator id of a span run's summary. */
    static final String SOURCE = "goodput-spans";

    private long firstUs = Long.MAX_VALUE;
    private long lastUs = Long.MIN_VALUE;
    private long requests;
    private long ok;
    private long error;
    private long timeout;
    private long abandoned;

    synchronized void add(RequestEvent e) {
        firstUs = Math.min(firstUs, Micros.of(e.getIntendedSendTimeUs()));
        lastUs = Math.max(lastUs, Micros.of(e.getCompletionTimeUs()));
        requests++;
        switch (e.getStatus()) {
            case OK -> ok++;
            case ERROR -> error++;
            case TIMEOUT -> timeout++;
            case ABANDONED -> abandoned++;
            default -> throw new IllegalStateException("a status new to the tally: " + e.getStatus());
        }
    }

    /** The run's summary, or null when no span was taken. */
    synchronized RunSummary summary(Contract contract, String runId, String scenario, String targetId) {
        if (requests == 0) {
            return null;
        }
        final Instant started = Micros.toInstant(firstUs);
        return RunSummary.newBuilder().setContractId(contract.id()).setRunId(runId).setScenarioId(scenario)
                .setGeneratorId(SOURCE).setTargetId(targetId).setArrival(Contract.Arrival.OBSERVED_SERVER_SIDE)
                .setRateRps(null).setConcurrency(null)
                .setStartedUs(started).setWarmupEndUs(started).setEndedUs(Micros.toInstant(lastUs))
                .setRequests(requests).setWarmupRequests(0).setRequestsOk(ok).setRequestsError(error)
                .setRequestsTimeout(timeout).setRequestsAbandoned(abandoned).setTokenEvents(0)
                .setLatenessP50Us(0).setLatenessP99Us(0).setLatenessMaxUs(0).setLatenessBoundUs(0)
                .setGeneratorSaturated(false).setGeneratorCpuS(0).setWallS((lastUs - firstUs) / 1e6).build();
    }
}
