package dev.goodput.definitions;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;

import org.HdrHistogram.Histogram;

/**
 * HdrHistogram units, ranges and encodings. Every latency is recorded in microseconds with 3
 * significant digits; ranges are chosen per metric so that many open windows stay small. Values
 * above a range are clamped to it (and counted, so nothing is silently lost).
 */
public final class Histograms {
    public static final int SIGNIFICANT_DIGITS = 3;
    /** TTFT, time to first answer, E2E: up to 1 hour. */
    public static final long MAX_REQUEST_LATENCY_US = 3_600_000_000L;
    /** ITL and TPOT: up to 10 minutes between two chunks. */
    public static final long MAX_TOKEN_LATENCY_US = 600_000_000L;
    /** Dispatch lateness: up to 1 hour. */
    public static final long MAX_LATENESS_US = 3_600_000_000L;

    private Histograms() {
    }

    public static Histogram request() {
        return new Histogram(MAX_REQUEST_LATENCY_US, SIGNIFICANT_DIGITS);
    }

    public static Histogram token() {
        return new Histogram(MAX_TOKEN_LATENCY_US, SIGNIFICANT_DIGITS);
    }

    /**
     * A histogram for a short-lived partial aggregate: same buckets as {@link #request()} and
     * {@link #token()} (so adding it to them is exact), but it grows with the values recorded
     * instead of holding a whole range's counts (~190 KB) from the start.
     */
    public static Histogram partial() {
        return new Histogram(SIGNIFICANT_DIGITS);
    }

    /** Records a value, clamped to [0, highest trackable]. */
    public static void record(Histogram h, long valueUs) {
        record(h, valueUs, h.getHighestTrackableValue());
    }

    /** Records a value, clamped to [0, maxUs] (the metric's range, for a histogram that grows). */
    public static void record(Histogram h, long valueUs, long maxUs) {
        h.recordValue(Math.max(0, Math.min(valueUs, maxUs)));
    }

    /**
     * {@code h} over the whole range {@code maxUs}, for a record that carries the metric's range: a
     * histogram that grows names the range it has grown to in its encoding, so it is added into a
     * whole-range one first. That one is this thread's and is reset by the next call: use it at once.
     */
    public static Histogram overRange(Histogram h, long maxUs) {
        final Histogram whole = RANGES.get().computeIfAbsent(maxUs, m -> new Histogram(m, SIGNIFICANT_DIGITS));
        whole.reset();
        whole.add(h);
        return whole;
    }

    private static final ThreadLocal<Map<Long, Histogram>> RANGES = ThreadLocal.withInitial(HashMap::new);

    /**
     * The compressed encoding carried in window records (merge downstream with {@link #decode} and
     * add): byte for byte HdrHistogram's {@code encodeIntoCompressedByteBuffer}, without what that
     * costs. HdrHistogram keeps a whole-range buffer (~200 KB for a latency range) in every
     * histogram it compresses and a new Deflater per call; here both are one per thread.
     */
    public static byte[] encode(Histogram h) {
        final Encoder e = ENCODER.get();
        final ByteBuffer raw = e.raw(h.getNeededByteBufferCapacity());
        final int n = h.encodeIntoByteBuffer(raw);
        final Deflater d = e.deflater;
        d.reset();
        d.setInput(raw.array(), 0, n);
        d.finish();
        // room for deflate's worst case (zlib's deflateBound), so one call writes it all
        byte[] out = e.out(8 + n + (n >> 12) + (n >> 14) + (n >> 25) + 13 + 6);
        int written = d.deflate(out, 8, out.length - 8);
        while (!d.finished()) {
            out = Arrays.copyOf(out, out.length * 2);
            e.compressed = out;
            written += d.deflate(out, 8 + written, out.length - 8 - written);
        }
        final ByteBuffer header = ByteBuffer.wrap(out);
        header.putInt(0, COMPRESSED_COOKIE);
        header.putInt(4, written);
        return Arrays.copyOf(out, 8 + written);
    }

    /** The first word of HdrHistogram's compressed encoding of a {@link Histogram}, as the library writes it. */
    private static final int COMPRESSED_COOKIE;

    static {
        final ByteBuffer b = ByteBuffer.allocate(1024);
        new Histogram(SIGNIFICANT_DIGITS).encodeIntoCompressedByteBuffer(b);
        COMPRESSED_COOKIE = b.getInt(0);
    }

    private static final ThreadLocal<Encoder> ENCODER = ThreadLocal.withInitial(Encoder::new);

    /** One thread's buffers and compressor for {@link #encode}, grown to the largest histogram seen. */
    private static final class Encoder {
        final Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION);
        ByteBuffer uncompressed;
        byte[] compressed;

        ByteBuffer raw(int capacity) {
            if (uncompressed == null || uncompressed.capacity() < capacity) {
                uncompressed = ByteBuffer.allocate(capacity);
            }
            uncompressed.clear();
            return uncompressed;
        }

        byte[] out(int capacity) {
            if (compressed == null || compressed.length < capacity) {
                compressed = new byte[capacity];
            }
            return compressed;
        }
    }

    /**
     * The encoding for the topology's own state and internal topic: HdrHistogram's V2 encoding
     * (zero runs collapsed, so a sparse histogram is a few hundred bytes) without the deflate pass,
     * which costs more than everything else a window update does.
     */
    public static byte[] encodeCompact(Histogram h) {
        final ByteBuffer b = scratch(h.getNeededByteBufferCapacity());
        final int n = h.encodeIntoByteBuffer(b);
        return Arrays.copyOf(b.array(), n);
    }

    /** Reads {@link #encodeCompact}; the histogram grows if later values need it. */
    public static Histogram decodeCompact(byte[] bytes) {
        final Histogram h = Histogram.decodeFromByteBuffer(ByteBuffer.wrap(bytes), 0);
        h.setAutoResize(true);
        return h;
    }

    /** One encoding buffer per thread, grown to the largest histogram seen: encoding allocates only its result. */
    private static final ThreadLocal<ByteBuffer[]> SCRATCH = ThreadLocal.withInitial(() -> new ByteBuffer[1]);

    private static ByteBuffer scratch(int capacity) {
        final ByteBuffer[] holder = SCRATCH.get();
        if (holder[0] == null || holder[0].capacity() < capacity) {
            holder[0] = ByteBuffer.allocate(capacity);
        }
        holder[0].clear();
        return holder[0];
    }

    public static Histogram decode(byte[] bytes) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
        } catch (DataFormatException e) {
            throw new IllegalArgumentException("not a compressed HdrHistogram", e);
        }
    }

    /** A histogram's count, percentiles, max and mean, in its unit (microseconds). */
    public record Percentiles(long count, long p50, long p90, long p95, long p99, long p999, long max, double mean) {
    }

    /** The percentiles a {@link Percentiles} carries, in its order. */
    private static final double[] PERCENTILES = {50, 90, 95, 99, 99.9};

    /**
     * Percentiles as HdrHistogram defines them ({@code getValueAtPercentile}, to the value): the value
     * at percentile p is the smallest recorded value v (at the histogram's precision) such that at
     * least p% of samples are <= v, reported as the highest value equivalent to v's bucket; the mean
     * as {@link #mean}. Empty histograms give zeros.
     *
     * <p>One walk over the buckets from the lowest value to the highest gives all five and the mean,
     * where {@code getValueAtPercentile} walks every bucket from zero for each percentile (a window
     * record's six histograms, many a second in a replay). Buckets below the lowest value are empty,
     * so the running count crosses each target in the same bucket; the target is HdrHistogram's own
     * ({@link #countAtPercentile}).
     */
    public static Percentiles percentiles(Histogram h) {
        final long total = h.getTotalCount();
        if (total == 0) {
            return new Percentiles(0, 0, 0, 0, 0, 0, 0, 0);
        }
        final long[] targets = new long[PERCENTILES.length];
        for (int i = 0; i < targets.length; i++) {
            targets[i] = countAtPercentile(PERCENTILES[i], total);
        }
        final long[] values = new long[PERCENTILES.length];
        int next = 0;
        long running = 0;
        double sum = 0;
        final long max = h.getMaxValue();
        for (long v = h.lowestEquivalentValue(h.getMinValue()); v <= max; v = h.nextNonEquivalentValue(v)) {
            final long count = h.getCountAtValue(v);
            if (count != 0) {
                sum += h.medianEquivalentValue(v) * (double) count; // the mean's terms, in bucket order
                running += count;
                while (next < targets.length && running >= targets[next]) {
                    values[next++] = h.highestEquivalentValue(v);
                }
            }
        }
        return new Percentiles(total, values[0], values[1], values[2], values[3], values[4], max, (sum * 1.0) / total);
    }

    /**
     * How many samples HdrHistogram's {@code getValueAtPercentile} counts up to for {@code percentile}
     * (0 < percentile <= 100): the percentile less one ulp (so round-off cannot reach into the next
     * bucket), of the total count, rounded up, at least 1.
     */
    static long countAtPercentile(double percentile, long total) {
        final double requested = Math.min(Math.max(Math.nextAfter(percentile, Double.NEGATIVE_INFINITY), 0.0D), 100.0D);
        return Math.max((long) Math.ceil((requested * total) / 100.0D), 1);
    }

    /**
     * HdrHistogram's own mean ({@code getMean}), to the last bit: each bucket's median equivalent value
     * times its count, summed in bucket order, over the total count (0 when empty). Walked bucket by
     * bucket ({@link #percentiles}), where {@code getMean} walks HdrHistogram's recorded-values
     * iterator, which costs some ten times more per bucket. An empty bucket adds exactly 0.0, so the
     * sum is the same.
     */
    static double mean(Histogram h) {
        return percentiles(h).mean();
    }
}
