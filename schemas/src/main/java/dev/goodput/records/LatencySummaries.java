package dev.goodput.records;

import java.nio.ByteBuffer;

import dev.goodput.avro.LatencySummary;
import dev.goodput.definitions.Histograms;
import org.HdrHistogram.Histogram;

/** A histogram as the window, verdict and report records carry it: its percentiles and its compressed encoding. */
public final class LatencySummaries {
    private LatencySummaries() {
    }

    public static LatencySummary of(Histogram h) {
        return of(Histograms.percentiles(h), h);
    }

    /**
     * A histogram that grows with its values ({@link Histograms#partial}), carried over its metric's
     * whole range {@code rangeUs}: encoded from its whole-range copy ({@link Histograms#overRange}),
     * its percentiles read from itself. They are the same (the same buckets; the copy only has more
     * of them, empty), and a window record's six histograms cost a scan of their own buckets rather
     * than of a whole range each (~23,000 for an hour) per percentile.
     */
    public static LatencySummary overRange(Histogram h, long rangeUs) {
        return of(Histograms.percentiles(h), Histograms.overRange(h, rangeUs));
    }

    private static LatencySummary of(Histograms.Percentiles p, Histogram h) {
        return LatencySummary.newBuilder()
                .setCount(p.count()).setP50Us(p.p50()).setP90Us(p.p90()).setP95Us(p.p95()).setP99Us(p.p99())
                .setP999Us(p.p999()).setMaxUs(p.max()).setMeanUs(p.mean())
                .setHistogram(ByteBuffer.wrap(Histograms.encode(h)))
                .build();
    }

    /** The histogram a summary carries (an empty one when it counted nothing). */
    public static Histogram histogram(LatencySummary s) {
        if (s.getCount() == 0) {
            return Histograms.partial();
        }
        final ByteBuffer b = s.getHistogram().duplicate();
        final byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return Histograms.decode(bytes);
    }
}
