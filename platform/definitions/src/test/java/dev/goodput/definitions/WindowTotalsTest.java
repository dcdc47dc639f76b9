package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class WindowTotalsTest {

    static WindowTotals.Outcome outcome(Random rnd, int i) {
        final boolean ok = i % 7 != 0;
        final long ttft = 20_000 + rnd.nextInt(400_000);
        final long e2e = ttft + rnd.nextInt(5_000_000);
        final int tokens = 1 + rnd.nextInt(300);
        final WindowTotals.Status status = ok ? WindowTotals.Status.OK
                : WindowTotals.Status.values()[1 + i % 3];
        return new WindowTotals.Outcome(status, ok || i % 2 != 0 ? null : "http_500",
                ok ? ttft : Definitions.UNDEFINED, ok && i % 4 != 0 ? ttft + 5 : Definitions.UNDEFINED,
                ok ? e2e : Definitions.UNDEFINED, ok && tokens > 1 ? Definitions.tpot(e2e, ttft, tokens) : Double.NaN,
                ok ? tokens : 0, rnd.nextInt(3_000), ok && i % 3 == 0, ok && i % 5 != 0, ok && i % 3 == 0 && i % 5 != 0);
    }

    @Test
    void partsAddedUpEqualOneTotalOfEveryRequest() {
        final Random rnd = new Random(42);
        final WindowTotals whole = WindowTotals.empty();
        final List<WindowTotals> parts = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            parts.add(WindowTotals.empty());
        }
        for (int i = 0; i < 2_000; i++) {
            final WindowTotals.Outcome o = outcome(rnd, i);
            final long gap = 1 + rnd.nextInt(90_000);
            final WindowTotals part = parts.get(rnd.nextInt(3));
            whole.add(o);
            whole.addGap(gap);
            part.add(o);
            part.addGap(gap);
            final long from = rnd.nextInt(10_000_000);
            final long to = from + rnd.nextInt(2_000_000);
            whole.live(from, to);
            part.live(from, to);
            if (i % 3 == 0) {
                whole.cache(100 + i % 7, i % 50);
                part.cache(100 + i % 7, i % 50);
            }
        }
        parts.get(1).refused("late", true);
        parts.get(2).refused("malformed", false);
        whole.refused("late", true);
        whole.refused("malformed", false);
        final WindowTotals added = WindowTotals.empty();
        parts.forEach(added::add);
        assertThat(added.counters()).containsExactly(whole.counters());
        assertThat(added.errorsByClass()).isEqualTo(whole.errorsByClass());
        assertThat(added.refused()).isEqualTo(whole.refused()).containsOnlyKeys("late", "malformed");
        for (int h = 0; h < 6; h++) {
            assertThat(added.histograms()[h]).isEqualTo(whole.histograms()[h]);
        }
        assertThat(added.tpotTokenWeightedMeanUs()).isEqualTo(whole.tpotTokenWeightedMeanUs());
        assertThat(added.total()).isEqualTo(2_000);
        assertThat(added.lateEvents()).isEqualTo(1);
        assertThat(List.of(added.liveFromUs(), added.liveToUs())).isEqualTo(List.of(whole.liveFromUs(), whole.liveToUs()));
        assertThat(added.cacheCounts()).containsExactly(whole.cacheCounts()).startsWith(667L);
    }

    @Test
    void aWindowKeepsTheHullOfItsLiveStretchesAndNoneBeforeTheFirst() {
        final WindowTotals t = WindowTotals.empty();
        assertThat(t.hasLive()).isFalse();
        t.refused("late", true);
        assertThat(t.hasLive()).isFalse();
        t.live(4_000_000, 5_000_000);
        t.live(1_000_000, 2_000_000);
        t.live(1_500_000, 3_000_000);
        assertThat(t.hasLive()).isTrue();
        assertThat(List.of(t.liveFromUs(), t.liveToUs())).isEqualTo(List.of(1_000_000L, 5_000_000L));
        final WindowTotals none = WindowTotals.empty();
        t.add(none);
        assertThat(List.of(t.liveFromUs(), t.liveToUs())).isEqualTo(List.of(1_000_000L, 5_000_000L));
        assertThatThrownBy(() -> t.live(2, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachStatusIsCountedAndOnlyOkRequestsReachTheLatencies() {
        final WindowTotals t = WindowTotals.empty();
        t.add(new WindowTotals.Outcome(WindowTotals.Status.OK, null, 100_000, 120_000, 1_100_000,
                Definitions.tpot(1_100_000, 100_000, 11), 11, 50, true, true, true));
        t.add(new WindowTotals.Outcome(WindowTotals.Status.OK, null, 900_000, Definitions.UNDEFINED, 1_900_000,
                Double.NaN, 1, 70, false, true, false));
        t.add(new WindowTotals.Outcome(WindowTotals.Status.ERROR, "http_500", Definitions.UNDEFINED, Definitions.UNDEFINED,
                Definitions.UNDEFINED, Double.NaN, 0, 10, false, false, false));
        t.add(new WindowTotals.Outcome(WindowTotals.Status.TIMEOUT, null, Definitions.UNDEFINED, Definitions.UNDEFINED,
                Definitions.UNDEFINED, Double.NaN, 0, 10, false, false, false));
        t.add(new WindowTotals.Outcome(WindowTotals.Status.ABANDONED, null, Definitions.UNDEFINED, Definitions.UNDEFINED,
                Definitions.UNDEFINED, Double.NaN, 0, 10, false, false, false));
        assertThat(new long[] {t.total(), t.ok(), t.error(), t.timeout(), t.abandoned(), t.sloPass(), t.qualityPass(),
            t.good(), t.outputTokensOk(), t.outputTokensGood()}).containsExactly(5, 2, 1, 1, 1, 1, 2, 1, 12, 11);
        assertThat(t.errorsByClass()).containsExactly(Map.entry("abandoned", 1L), Map.entry("http_500", 1L),
                Map.entry("timeout", 1L));
        assertThat(t.ttft().getTotalCount()).isEqualTo(2);
        assertThat(t.ttfat().getTotalCount()).isEqualTo(1);
        assertThat(t.tpot().getTotalCount()).isEqualTo(1);
        assertThat(t.lateness().getTotalCount()).isEqualTo(5);
        // one request with 10 decode steps over 1 s
        assertThat(t.tpotTokenWeightedMeanUs()).isEqualTo(100_000.0);
        assertThat(t.goodputRps(10)).isEqualTo(0.1);
        assertThat(t.goodputTokensPerS(10)).isEqualTo(1.1);
        assertThat(t.goodFraction()).isEqualTo(0.2);
        assertThat(t.outputTokensPerS(10)).isEqualTo(1.2);
        assertThat(t.tokensPerGpuSecond(10, 4)).isEqualTo(0.3);
    }

    @Test
    void aPartClampsToItsMetricsRangeAndARestoredOneKeepsGrowing() {
        final WindowTotals p = WindowTotals.empty();
        p.addGap(Histograms.MAX_TOKEN_LATENCY_US * 10);
        p.addGap(1_000);
        assertThat(p.itl().getMaxValue()).isEqualTo(p.itl().highestEquivalentValue(Histograms.MAX_TOKEN_LATENCY_US));
        final Histogram[] h = WindowTotals.empty().histograms();
        final WindowTotals back = WindowTotals.restore(new long[WindowTotals.COUNTERS], Map.of(), Map.of(), h);
        back.addGap(5_000_000);
        assertThat(back.itl().getTotalCount()).isEqualTo(1);
    }

    @Test
    void noRequestsMeanNoWeightedTpotRatherThanADivisionByZero() {
        assertThat(WindowTotals.empty().tpotTokenWeightedMeanUs()).isZero();
        assertThat(WindowTotals.empty().goodFraction()).isZero();
    }
}
