package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.goodput.avro.RequestStatus;
import dev.goodput.metrics.Definitions;
import dev.goodput.metrics.Histograms;
import org.junit.jupiter.api.Test;

/** Partial aggregates merged downstream equal one aggregate over all their requests. */
class WindowAggTest {

    private static Sample.Request request(Random rnd, int i) {
        final boolean ok = i % 7 != 0;
        final long ttft = 20_000 + rnd.nextInt(400_000);
        final long e2e = ttft + rnd.nextInt(5_000_000);
        final int tokens = 1 + rnd.nextInt(300);
        final long[] gaps = new long[ok ? Math.max(0, tokens - 1) % 20 : 0];
        final long[] times = new long[gaps.length];
        for (int g = 0; g < gaps.length; g++) {
            gaps[g] = 1 + rnd.nextInt(90_000);
            times[g] = g;
        }
        return new Sample.Request(i % 3, 0, "c", "s", 1_000 + i, ok ? RequestStatus.OK.ordinal() : RequestStatus.ERROR.ordinal(),
                ok ? null : (i % 2 == 0 ? "http_500" : "http_429"), ok ? ttft : Definitions.UNDEFINED,
                ok ? ttft + 5 : Definitions.UNDEFINED, ok ? e2e : Definitions.UNDEFINED,
                ok && tokens > 1 ? (e2e - ttft) / (double) (tokens - 1) : Double.NaN, ok ? tokens : 0, rnd.nextInt(3_000),
                ok && i % 3 == 0, ok && i % 5 != 0, ok && i % 3 == 0 && i % 5 != 0, gaps, times);
    }

    private static void add(WindowAgg a, Sample.Request r) {
        a.addRequest(r);
        for (long g : r.gapsUs()) {
            a.addGap(g);
        }
    }

    @Test
    void mergedPartialsEqualOneAggregateOfEveryRequest() {
        final Random rnd = new Random(42);
        final WindowAgg whole = new WindowAgg("c", "s", 0);
        final List<WindowAgg> parts = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            parts.add(WindowAgg.partial("c", "s", 0));
        }
        for (int i = 0; i < 2_000; i++) {
            final Sample.Request r = request(rnd, i);
            add(whole, r);
            add(parts.get(rnd.nextInt(3)), r);
        }
        parts.get(1).lateEvents = 4;
        whole.lateEvents = 4;
        final WindowAgg merged = new WindowAgg("c", "s", 0);
        // through the wire encoding, as the merger receives them
        parts.forEach(p -> merged.merge(WindowAgg.CODEC.decode(WindowAgg.CODEC.encode(p))));
        final var c = Fixture.CONTRACT;
        assertThat(merged.toAvro(c, 10_000_000, 5_000_000, true)).isEqualTo(whole.toAvro(c, 10_000_000, 5_000_000, true));
        assertThat(merged.total).isEqualTo(2_000);
        assertThat(merged.errorsByClass).containsOnlyKeys("http_500", "http_429");
    }

    @Test
    void aPartialClampsToItsMetricsRangeAndStaysSmall() {
        final WindowAgg p = WindowAgg.partial("c", "s", 0);
        p.addGap(Histograms.MAX_TOKEN_LATENCY_US * 10);
        p.addGap(1_000);
        assertThat(p.itl.getMaxValue()).isEqualTo(p.itl.highestEquivalentValue(Histograms.MAX_TOKEN_LATENCY_US));
        // a restored partial keeps growing instead of failing on a larger value
        final WindowAgg back = WindowAgg.CODEC.decode(WindowAgg.CODEC.encode(WindowAgg.partial("c", "s", 0)));
        back.addGap(5_000_000);
        assertThat(back.itl.getTotalCount()).isEqualTo(1);
        assertThat(WindowAgg.CODEC.encode(p).length).isLessThan(2_000);
    }
}
