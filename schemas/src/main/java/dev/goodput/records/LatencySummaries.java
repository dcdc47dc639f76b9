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
        final Histograms.Percentiles p = Histograms.percentiles(h);
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
