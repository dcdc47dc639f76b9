package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.goodput.assembly.WindowAgg;
import dev.goodput.avro.RequestStatus;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.WindowTotals;
import org.junit.jupiter.api.Test;

/** Partial aggregates sent through their layout and merged downstream give the window record of all their requests. */
class WindowAggTest {

    private static WindowTotals.Outcome outcome(Random rnd, int i) {
        final boolean ok = i % 7 != 0;
        final long ttft = 20_000 + rnd.nextInt(400_000);
        final long e2e = ttft + rnd.nextInt(5_000_000);
        final int tokens = 1 + rnd.nextInt(300);
        return new WindowTotals.Outcome(ok ? WindowTotals.Status.OK : WindowTotals.Status.ERROR,
                ok ? null : (i % 2 == 0 ? "http_500" : "http_429"), ok ? ttft : Definitions.UNDEFINED,
                ok ? ttft + 5 : Definitions.UNDEFINED, ok ? e2e : Definitions.UNDEFINED,
                ok && tokens > 1 ? (e2e - ttft) / (double) (tokens - 1) : Double.NaN, ok ? tokens : 0, rnd.nextInt(3_000),
                ok && i % 3 == 0, ok && i % 5 != 0, ok && i % 3 == 0 && i % 5 != 0);
    }

    @Test
    void mergedPartialsGiveTheWindowRecordOfEveryRequest() {
        final Random rnd = new Random(42);
        final WindowAgg whole = new WindowAgg("c", "s", 0);
        final List<WindowAgg> parts = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            parts.add(new WindowAgg("c", "s", 0));
        }
        for (int i = 0; i < 2_000; i++) {
            final WindowTotals.Outcome o = outcome(rnd, i);
            final long gap = 1 + rnd.nextInt(90_000);
            final long from = rnd.nextInt(9_000_000);
            final long to = from + rnd.nextInt(1_000_000);
            for (WindowAgg a : List.of(whole, parts.get(rnd.nextInt(3)))) {
                a.totals.add(o);
                a.totals.addGap(gap);
                a.totals.live(from, to);
                a.totals.cache(200, i % 100);
            }
        }
        parts.get(1).totals.refused("late", true);
        whole.totals.refused("late", true);
        final WindowAgg merged = new WindowAgg("c", "s", 0);
        // through the wire layout, as the merger receives them
        parts.forEach(p -> merged.totals.add(((Sample.Partial) Sample.CODEC.decode(Sample.CODEC.encode(
                new Sample.Partial(0, 0, p)))).agg().totals));
        final var c = Fixture.CONTRACT;
        assertThat(WindowRecord.toAvro(merged, c, 10_000_000, 5_000_000, c.objectives(), c.quality().floor(), true).getLiveEndUs())
                .isGreaterThan(WindowRecord.toAvro(merged, c, 10_000_000, 5_000_000, c.objectives(), c.quality().floor(), true).getLiveStartUs());
        assertThat(WindowRecord.toAvro(merged, c, 10_000_000, 5_000_000, c.objectives(), c.quality().floor(), true)).isEqualTo(WindowRecord.toAvro(whole, c, 10_000_000, 5_000_000, c.objectives(), c.quality().floor(), true));
        assertThat(WindowRecord.toAvro(merged, c, 10_000_000, 5_000_000, c.objectives(), c.quality().floor(), true).getErrorsByClass()).containsOnlyKeys("http_500", "http_429");
        assertThat(WindowRecord.toAvro(merged, c, 10_000_000, 5_000_000, c.objectives(), c.quality().floor(), true).getLateEvents()).isEqualTo(1);
        // the record names the judging that made it: the contract's objectives here, a what-if's when one replaced them
        assertThat(WindowRecord.toAvro(merged, c, 10_000_000, 5_000_000, c.objectives(), c.quality().floor(), true).getObjectives())
                .isEqualTo(dev.goodput.definitions.SloFlags.text(c.objectives())).isNotEqualTo("none");
        assertThat(WindowRecord.toAvro(merged, c, 10_000_000, 5_000_000, dev.goodput.contract.Contract.Objectives.ofMillis(100.0, null, null),
                0.5, true)).extracting(w -> w.getObjectives(), w -> w.getQualityFloor()).containsExactly("ttft:100", 0.5);
    }

    @Test
    void aStoredAggregateComesBackWithItsKeyAndStaysSmall() {
        final WindowAgg p = new WindowAgg("c", "s", 30_000_000);
        p.totals.addGap(1_000);
        p.totals.refused("malformed", false);
        final WindowAgg back = WindowAgg.CODEC.decode(WindowAgg.CODEC.encode(p));
        assertThat(List.of(back.contractId, back.scenarioId, back.startUs)).containsExactly("c", "s", 30_000_000L);
        assertThat(back.totals.counters()).containsExactly(p.totals.counters());
        assertThat(back.totals.refused()).containsEntry("malformed", 1L);
        // a window of refusals and gaps only was not used: its record says so with an empty live stretch
        assertThat(back.totals.hasLive()).isFalse();
        final var c = Fixture.CONTRACT;
        final var none = WindowRecord.toAvro(back, c, 10_000_000, 5_000_000, c.objectives(), c.quality().floor(), true);
        assertThat(List.of(none.getLiveStartUs(), none.getLiveEndUs())).containsExactly(30_000_000L, 30_000_000L);
        p.totals.live(31_000_000, 33_500_000);
        p.totals.cache(1_000, 900);
        final WindowAgg used = WindowAgg.CODEC.decode(WindowAgg.CODEC.encode(p));
        assertThat(List.of(used.totals.liveFromUs(), used.totals.liveToUs())).containsExactly(31_000_000L, 33_500_000L);
        assertThat(used.totals.cacheCounts()).containsExactly(1L, 1_000L, 900L);
        assertThat(WindowRecord.toAvro(used, c, 10_000_000, 5_000_000, c.objectives(), c.quality().floor(), true).getCacheHitRate()).isEqualTo(0.9);
        assertThat(none.getCacheHitRate()).isNull();
        assertThat(WindowAgg.CODEC.encode(p).length).isLessThan(2_000);
    }

    @Test
    void theContractsStatusesAreTheOnesWindowsCount() {
        assertThat(Verdicts.STATUS).extracting(Enum::name)
                .containsExactly(java.util.Arrays.stream(RequestStatus.values()).map(Enum::name).toArray(String[]::new));
    }
}
