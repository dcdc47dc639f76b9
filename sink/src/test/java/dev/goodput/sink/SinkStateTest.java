package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/** The sink's two stored layouts: what a restarted sink restores is what it held. */
class SinkStateTest {

    @Test
    void priceVersionsComeBackWithTheirDatesAndBytes() {
        final TreeMap<Long, byte[]> v = new TreeMap<>();
        v.put(1_700_000_000_000_000L, new byte[] {0, 0, 0, 0, 1, 2, 3});
        v.put(-5L, new byte[0]);
        final TreeMap<Long, byte[]> back = PriceVersions.CODEC.decode(PriceVersions.CODEC.encode(v));
        assertThat(back.keySet()).containsExactly(-5L, 1_700_000_000_000_000L);
        assertThat(back.get(1_700_000_000_000_000L)).containsExactly(0, 0, 0, 0, 1, 2, 3);
        assertThat(back.get(-5L)).isEmpty();
    }

    @Test
    void recentWindowsComeBackFieldForField() {
        final PricedWindow priced = window(0, true, "spot 2026-11");
        final PricedWindow unpriced = window(10_000_000, false, null);
        final ArrayDeque<PricedWindow> all = new ArrayDeque<>();
        all.add(priced);
        all.add(unpriced);
        final ArrayDeque<PricedWindow> back = PricedWindow.RECENT.decode(PricedWindow.RECENT.encode(all));
        assertThat(back).hasSize(2);
        assertThat(back.peekFirst()).usingRecursiveComparison().isEqualTo(priced);
        assertThat(back.peekLast()).usingRecursiveComparison().isEqualTo(unpriced);
        assertThat(back.peekLast().priceSource).isNull();
    }

    @Test
    void stateAnOlderBuildWroteIsRefusedWithTheWayOut() throws IOException {
        // the layout before these codecs: DataOutputStream, a 4-byte count first
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(1);
            out.writeLong(42);
            out.writeInt(0);
        }
        assertThatThrownBy(() -> PriceVersions.CODEC.decode(bytes.toByteArray()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the sink's price versions is in layout 0")
                .hasMessageContaining("reset");
    }

    private static PricedWindow window(long startUs, boolean priced, String source) {
        final PricedWindow w = new PricedWindow();
        w.startUs = startUs;
        w.endUs = startUs + 10_000_000;
        w.seconds = 10.0;
        w.tokensOk = 12_345;
        w.tokensGood = 12_000;
        w.requests = 400;
        w.good = 390;
        w.priced = priced;
        w.usdPerGpuHour = priced ? 2.49 : 0;
        w.hourlyCost = priced ? 19.92 : 0;
        w.headroom = priced ? 0.15 : 0;
        w.priceEffectiveUs = priced ? 1_700_000_000_000_000L : 0;
        w.priceSource = source;
        return w;
    }
}
