package dev.goodput.report;

import dev.goodput.contract.Contract;

/** What a run's way of observing requests leaves out, said in the report beside its figures. */
final class Observation {
    /** Traffic seen in the server's spans ({@code goodput spans}). */
    static final String SERVER_SIDE = "Observed server-side from OpenTelemetry spans: TTFT and E2E run from each request's arrival"
            + " at the server, on its clock (no client, network or gateway time); ITL is not measured (spans carry no per-chunk"
            + " times), and TPOT is (E2E - TTFT) / (tokens - 1) from the span; quality is not judged (spans carry no text).";
    /** Generated, or seen by the proxy: a client's clock. */
    static final String CLIENT_SIDE = "Measured client-side (the generator's or the proxy's clock), per content chunk.";

    private Observation() {
    }

    static String of(Contract c) {
        return c.arrival().serverSide() ? SERVER_SIDE : CLIENT_SIDE;
    }
}
