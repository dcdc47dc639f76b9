package dev.goodput.sink;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.CostFormulas;
import dev.goodput.definitions.Micros;
import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.StateCodec;
import dev.goodput.bytes.Varint;

/** What a rolling span needs of one priced window; the sink keeps a scenario's latest ones. */
final class PricedWindow {
    long startUs;
    long endUs;
    double seconds;
    long tokensOk;
    long tokensGood;
    long requests;
    long good;
    boolean priced;
    double usdPerGpuHour;
    double hourlyCost;
    double headroom;
    long priceEffectiveUs;
    String priceSource;

    CostFormulas.Segment segment() {
        return new CostFormulas.Segment(seconds, hourlyCost, headroom, usdPerGpuHour, tokensOk, tokensGood);
    }

    static PricedWindow of(WindowStats w, GpuPrice p) {
        final PricedWindow s = new PricedWindow();
        s.startUs = Micros.of(w.getWindowStartUs());
        s.endUs = Micros.of(w.getWindowEndUs());
        s.seconds = chargedSeconds(w);
        s.tokensOk = w.getOutputTokensOk();
        s.tokensGood = w.getOutputTokensGood();
        s.requests = w.getRequestsTotal();
        s.good = w.getGoodRequests();
        s.priced = p != null;
        if (p != null) {
            s.usdPerGpuHour = p.getUsdPerGpuHour();
            s.hourlyCost = CostFormulas.hourlyCost(PricesFile.rates(p), w.getGpuCount());
            s.headroom = p.getWarmHeadroomFraction();
            s.priceEffectiveUs = Micros.of(p.getEffectiveFromUs());
            s.priceSource = p.getSource();
        }
        return s;
    }

    /**
     * The seconds of the window its scenario is charged: the part it used, from its first request's
     * intended send (or the window's start) to its last completion (or the window's end), as the
     * streams-app recorded it; a window in which no request was live is charged nothing. A record
     * written before that was recorded is charged whole, as it was then.
     */
    static double chargedSeconds(WindowStats w) {
        final long start = Micros.of(w.getWindowStartUs());
        final long end = Micros.of(w.getWindowEndUs());
        if (w.getLiveStartUs() == null || w.getLiveEndUs() == null) {
            return (end - start) / 1e6;
        }
        return CostFormulas.chargedSeconds(start, end, w.getLiveStartUs(), w.getLiveEndUs());
    }

    /** A scenario's latest priced windows, oldest first: the value of the sink's recent-windows store. */
    static final StateCodec<ArrayDeque<PricedWindow>> RECENT = new StateCodec<>() {
        private static final int FORMAT = 1;

        @Override
        public byte[] encode(ArrayDeque<PricedWindow> all) {
            final ByteSink out = new ByteSink(16 + all.size() * 96);
            Varint.writeLong(out, FORMAT);
            Varint.writeLong(out, all.size());
            for (PricedWindow s : all) {
                Varint.writeLong(out, s.startUs);
                Varint.writeLong(out, s.endUs);
                Varint.writeDouble(out, s.seconds);
                Varint.writeLong(out, s.tokensOk);
                Varint.writeLong(out, s.tokensGood);
                Varint.writeLong(out, s.requests);
                Varint.writeLong(out, s.good);
                Varint.writeLong(out, s.priced ? 1 : 0);
                Varint.writeDouble(out, s.usdPerGpuHour);
                Varint.writeDouble(out, s.hourlyCost);
                Varint.writeDouble(out, s.headroom);
                Varint.writeLong(out, s.priceEffectiveUs);
                Varint.writeString(out, s.priceSource);
            }
            return out.toByteArray();
        }

        @Override
        public ArrayDeque<PricedWindow> decode(byte[] bytes) {
            final ByteBuffer in = StateCodec.expectFormat(bytes, FORMAT, "the sink's recent windows");
            final int n = (int) Varint.readLong(in);
            final ArrayDeque<PricedWindow> all = new ArrayDeque<>(n);
            for (int i = 0; i < n; i++) {
                final PricedWindow s = new PricedWindow();
                s.startUs = Varint.readLong(in);
                s.endUs = Varint.readLong(in);
                s.seconds = Varint.readDouble(in);
                s.tokensOk = Varint.readLong(in);
                s.tokensGood = Varint.readLong(in);
                s.requests = Varint.readLong(in);
                s.good = Varint.readLong(in);
                s.priced = Varint.readLong(in) != 0;
                s.usdPerGpuHour = Varint.readDouble(in);
                s.hourlyCost = Varint.readDouble(in);
                s.headroom = Varint.readDouble(in);
                s.priceEffectiveUs = Varint.readLong(in);
                s.priceSource = Varint.readString(in);
                all.add(s);
            }
            return all;
        }
    };
}
