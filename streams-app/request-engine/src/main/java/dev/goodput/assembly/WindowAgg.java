package dev.goodput.assembly;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.definitions.Histograms;
import dev.goodput.definitions.WindowTotals;
import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.Varint;
import org.HdrHistogram.Histogram;

/**
 * One (contract, scenario, window) and its {@link WindowTotals}: what a partition's partial aggregate
 * and a merged window hold, and the layout they are stored and sent in. The arithmetic is the
 * totals' own; the streams-app makes the window's record of it.
 */
public final class WindowAgg {
    public final String contractId;
    public final String scenarioId;
    public final long startUs;
    public final WindowTotals totals;

    public WindowAgg(String contractId, String scenarioId, long startUs) {
        this(contractId, scenarioId, startUs, WindowTotals.empty());
    }

    private WindowAgg(String contractId, String scenarioId, long startUs, WindowTotals totals) {
        this.contractId = contractId;
        this.scenarioId = scenarioId;
        this.startUs = startUs;
        this.totals = totals;
    }

    /**
     * The layout of the partial and window stores and of a partial on the internal topic: identity,
     * the counters, the error classes, the six histograms (compact), the refusal reasons, then the
     * hull of the live stretches, if any, from the window's start, then the cache counts.
     */
    public static final LiveStore.Codec<WindowAgg> CODEC = new LiveStore.Codec<>() {
        @Override
        public byte[] encode(WindowAgg a) {
            final ByteSink out = new ByteSink(1024);
            Varint.writeString(out, a.contractId);
            Varint.writeString(out, a.scenarioId);
            Varint.writeLong(out, a.startUs);
            for (long v : a.totals.counters()) {
                Varint.writeLong(out, v);
            }
            writeCounts(out, a.totals.errorsByClass());
            for (Histogram h : a.totals.histograms()) {
                Varint.writeBytes(out, Histograms.encodeCompact(h));
            }
            // appended later: an aggregate written by an older build simply lacks them
            writeCounts(out, a.totals.refused());
            Varint.writeLong(out, a.totals.hasLive() ? 1 : 0);
            if (a.totals.hasLive()) {
                Varint.writeLong(out, a.totals.liveFromUs() - a.startUs);
                Varint.writeLong(out, a.totals.liveToUs() - a.startUs);
            }
            for (long v : a.totals.cacheCounts()) {
                Varint.writeLong(out, v);
            }
            return out.toByteArray();
        }

        @Override
        public WindowAgg decode(byte[] bytes) {
            final ByteBuffer in = ByteBuffer.wrap(bytes);
            final String contract = Varint.readString(in);
            final String scenario = Varint.readString(in);
            final long start = Varint.readLong(in);
            final long[] counters = new long[WindowTotals.COUNTERS];
            for (int i = 0; i < counters.length; i++) {
                counters[i] = Varint.readLong(in);
            }
            final Map<String, Long> byClass = readCounts(in);
            final Histogram[] h = new Histogram[6];
            for (int i = 0; i < h.length; i++) {
                h[i] = Histograms.decodeCompact(Varint.readBytes(in));
            }
            final Map<String, Long> refused = in.hasRemaining() ? readCounts(in) : Map.of();
            final WindowTotals totals = WindowTotals.restore(counters, byClass, refused, h);
            if (in.hasRemaining() && Varint.readLong(in) == 1) {
                final long from = start + Varint.readLong(in);
                totals.live(from, start + Varint.readLong(in));
            }
            if (in.hasRemaining()) {
                totals.restoreCache(Varint.readLong(in), Varint.readLong(in), Varint.readLong(in));
            }
            return new WindowAgg(contract, scenario, start, totals);
        }
    };

    private static void writeCounts(ByteSink out, Map<String, Long> counts) {
        Varint.writeLong(out, counts.size());
        counts.forEach((k, n) -> {
            Varint.writeString(out, k);
            Varint.writeLong(out, n);
        });
    }

    private static Map<String, Long> readCounts(ByteBuffer in) {
        final int n = (int) Varint.readLong(in);
        final Map<String, Long> counts = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            counts.put(Varint.readString(in), Varint.readLong(in));
        }
        return counts;
    }
}
