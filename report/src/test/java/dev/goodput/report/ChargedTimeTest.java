package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.RunSummary;
import dev.goodput.definitions.CostFormulas;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/** A scenario is charged its measured span, wherever the windows fall (#60). */
class ChargedTimeTest {

    private static final Instant T0 = Instant.parse("2026-12-07T08:00:00Z");

    private static RunSummary run(Instant warmupEnd, Instant ended) {
        return RunSummary.newBuilder(SampleRecords.runSummary()).setWarmupEndUs(warmupEnd).setEndedUs(ended).build();
    }

    /** Per-window cost records at $6.50 an hour, {@code goodTokens} good tokens in each window from {@code from}. */
    private static List<CostRecord> windows(Instant from, int n, long goodTokens) {
        final List<CostRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final Instant start = from.plusSeconds(10L * i);
            out.add(CostRecord.newBuilder(SampleRecords.cost()).setWindowStartUs(start).setWindowEndUs(start.plusSeconds(10))
                    .setHourlyCostUsd(6.5).setOutputTokensGood(goodTokens).setOutputTokensOk(goodTokens).build());
        }
        return out;
    }

    private static CostFormulas.Span cost(RunSummary run, List<CostRecord> windows) {
        return CostFormulas.span(ChargedTime.segments(ChargedTime.spans(List.of(run)), windows), 1);
    }

    @Test
    void twoIdenticalScenariosCostTheSameWhereverTheWindowsFall() {
        // 15.6 s measured, 9,152 good tokens: one across 2 windows, the other across 3 (the demo's cold and warm)
        final CostFormulas.Span two = cost(run(T0.plusSeconds(2), T0.plusMillis(17_600)), windows(T0, 2, 4_576));
        final CostFormulas.Span three = cost(run(T0.plusSeconds(8), T0.plusMillis(23_600)), windows(T0, 3, 9_152 / 3));
        assertThat(two.seconds()).isCloseTo(15.6, within(1e-9));
        assertThat(three.seconds()).isCloseTo(15.6, within(1e-9));
        final double a = CostFormulas.costPerSuccessfulMillion(two.costUsd(), two.outputTokensGood());
        final double b = CostFormulas.costPerSuccessfulMillion(three.costUsd(), 9_152);
        assertThat(a).isCloseTo(b, within(1e-9));
        // 6.50 $/h x 15.6 s / 9,152 good tokens x 1e6, by hand
        assertThat(a).isCloseTo(6.5 * 15.6 / 3600 / 9_152 * 1e6, within(1e-9));
    }

    @Test
    void aWindowWithoutCompletionsInsideTheSpanIsStillCharged() {
        // 30 s requests: completions only in the first and last windows; the middle one is charged at the earlier price
        final List<CostRecord> w = windows(T0, 3, 1_000);
        final CostFormulas.Span s = cost(run(T0.plusSeconds(5), T0.plusSeconds(25)), List.of(w.get(0), w.get(2)));
        assertThat(s.seconds()).isCloseTo(20.0, within(1e-9));
        assertThat(s.outputTokensGood()).isEqualTo(2_000);
    }

    @Test
    void overlappingGeneratorsAreChargedTheirUnionOnce() {
        final List<ChargedTime.Interval> spans = ChargedTime.spans(List.of(run(T0.plusSeconds(2), T0.plusSeconds(12)),
                run(T0.plusSeconds(4), T0.plusSeconds(14)), run(T0.plusSeconds(30), T0.plusSeconds(31))));
        assertThat(spans).hasSize(2);
        assertThat(CostFormulas.span(ChargedTime.segments(spans, windows(T0, 4, 10)), 1).seconds()).isCloseTo(13.0, within(1e-9));
        // the 16 s between 14 s and 30 s: idle, charged to no scenario
        assertThat(ChargedTime.idleSeconds(spans)).isCloseTo(16.0, within(1e-9));
    }

    @Test
    void nothingPricedNothingCharged() {
        assertThat(ChargedTime.segments(ChargedTime.spans(List.of(run(T0, T0.plusSeconds(5)))), List.of())).isEmpty();
    }
}
