package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.WindowStats;
import dev.goodput.topics.Control;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * A request whose token events came and whose request event never will (a producer killed between
 * them) holds the watermark at its first chunk. It is held for a bounded, settable log time, then
 * refused to the DLQ as orphaned; a run's end-of-run markers refuse it at once, so the run's last
 * windows close (#60, item 5).
 */
class OrphanTest {

    private static final long S = 1_000_000;
    private static final long T0 = Fixture.T0;

    /** An orphan's two chunks at 1 s, a complete request at 2 s, and ticks on both topics through {@code untilS}. */
    private static void runWithAnOrphan(Fixture f, long untilS) {
        f.token("orphan", 0, T0 + S, 1, ChunkKind.ANSWER);
        f.token("orphan", 1, T0 + S + 20_000, 1, ChunkKind.ANSWER);
        f.okRequest("ok", T0 + 2 * S, T0 + 2 * S + 100_000, T0 + 2 * S + 120_000);
        for (long s = 3; s <= untilS; s++) {
            f.control(true, (T0 + s * S) / 1000);
            f.control(false, (T0 + s * S) / 1000);
        }
        f.tick();
        f.tick();
    }

    private static List<String> reasons(List<TestRecord<String, byte[]>> dead) {
        return dead.stream().map(d -> DeadLetters.header(d.headers(), DeadLetters.REASON)).toList();
    }

    @Test
    void withoutAnEndOfRunTheOrphanHoldsItsWindowOpenUntilItExpires() {
        try (Fixture f = new Fixture()) {
            // the generator ticked a window and its grace past the run: the window [0, 10 s) would close, but for the orphan
            runWithAnOrphan(f, 17);
            assertThat(f.finals()).as("no final window while the orphan is held").isEmpty();
            assertThat(f.dlq.readRecordsToList()).isEmpty();
        }
    }

    @Test
    void anEndOfRunRefusesTheRunsOrphansAndItsWindowsClose() {
        try (Fixture f = new Fixture()) {
            runWithAnOrphan(f, 17);
            f.control(true, (T0 + 17 * S) / 1000 + 1, Control.END_OF_RUN);
            f.control(false, (T0 + 17 * S) / 1000 + 2, Control.END_OF_RUN);
            f.tick();
            f.tick();
            final List<TestRecord<String, byte[]>> dead = f.dlq.readRecordsToList();
            assertThat(reasons(dead)).containsExactly(Refusals.ORPHANED);
            assertThat(dead.get(0).key()).isEqualTo("orphan");
            assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.MESSAGE)).contains("2 chunk(s)")
                    .contains("end-of-run marker");
            final List<WindowStats> finals = f.finals();
            assertThat(finals).hasSize(1);
            assertThat(finals.get(0).getRequestsTotal()).as("the complete request").isEqualTo(1);
            assertThat(finals.get(0).getRefusedEvents()).containsEntry(Refusals.ORPHANED, 1L);
            assertThat(f.verdicts.readValuesToList()).hasSize(1);
        }
    }

    @Test
    void anOrphanIsRefusedAfterTheExpiryTheUserSet() {
        final StreamsSettings shortExpiry = StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT))
                .withOrphanExpiry(Duration.ofSeconds(20));
        try (Fixture f = new Fixture(shortExpiry)) {
            runWithAnOrphan(f, 17);
            assertThat(f.finals()).isEmpty();
            // 20 s of log time after its last chunk: refused, and the windows close without any end-of-run
            for (long s = 18; s <= 23; s++) {
                f.control(true, (T0 + s * S) / 1000);
                f.control(false, (T0 + s * S) / 1000);
            }
            f.tick();
            f.tick();
            assertThat(reasons(f.dlq.readRecordsToList())).containsExactly(Refusals.ORPHANED);
            assertThat(f.finals()).extracting(WindowStats::getRequestsTotal).contains(1L);
        }
    }
}
