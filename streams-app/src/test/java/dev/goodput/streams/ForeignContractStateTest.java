package dev.goodput.streams;

import static dev.goodput.streams.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.goodput.assembly.WindowAgg;
import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.WindowTotals;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.junit.jupiter.api.Test;

/**
 * A restart under another contract with the same application id restores windows of the old
 * contract into the merger's store (ReportIT's second demo did this). They cannot be emitted
 * without their contract's hardware fields, and must not stop the app.
 */
class ForeignContractStateTest {

    private static final String OTHER = "f".repeat(64);

    @Test
    void windowsOfAContractThisInstanceDoesNotHaveAreKeptAndTheAppGoesOn() {
        try (Fixture f = new Fixture()) {
            final TestInputTopic<String, byte[]> partials = f.driver.createInputTopic(
                    "goodput-test-" + GoodputTopology.SAMPLES + "-repartition", Serdes.String().serializer(),
                    Serdes.ByteArray().serializer());
            // what a run under OTHER left in the partial store, flushed by this instance
            final WindowAgg old = new WindowAgg(OTHER, "s1", T0);
            old.totals.add(new WindowTotals.Outcome(WindowTotals.Status.OK, null, 50_000, 50_000, 900_000, 10_000.0, 10, 100,
                    true, true, true));
            partials.pipeInput(OTHER + "|s1|" + T0, Sample.CODEC.encode(new Sample.Partial(0, T0, old)), T0 / 1000);
            f.okRequest("r1", T0 + 1_000_000, T0 + 1_200_000, T0 + 1_300_000);
            f.tick();
            // event time far past both windows' end + grace: the merger closes what it can
            f.closeThrough(T0 + 60_000_000);
            final List<WindowStats> finals = f.finals();
            assertThat(finals).isNotEmpty().allMatch(w -> w.getContractId().equals(Fixture.CONTRACT.id()));
            assertThat(finals).filteredOn(w -> w.getWindowStartUs().equals(Fixture.at(T0)))
                    .singleElement().satisfies(w -> assertThat(w.getRequestsTotal()).isEqualTo(1));
            // still running: a later window of this instance's contract closes too
            f.closeThrough(T0 + 120_000_000);
            assertThat(f.finals()).isNotEmpty();
        }
    }
}
