package dev.goodput.streams;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.assembly.LiveStore;
import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Histograms;
import dev.goodput.definitions.Micros;
import dev.goodput.definitions.SloFlags;
import dev.goodput.definitions.WindowTotals;
import dev.goodput.records.LatencySummaries;
import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.Varint;
import org.HdrHistogram.Histogram;

/**
 * One (contract, scenario, window) and its {@link WindowTotals}: the key the topology keeps them under
 * and the layout they are stored and sent in. The arithmetic is the totals' own.
 */
final class WindowAgg {
    final String contractId;
    final String scenarioId;
    final long startUs;
    final WindowTotals totals;

    WindowAgg(String contractId, String scenarioId, long startUs) {
        this(contractId, scenarioId, startUs, WindowTotals.empty());
    }

    private WindowAgg(String contractId, String scenarioId, long startUs, WindowTotals totals) {
        this.contractId = contractId;
        this.scenarioId = scenarioId;
        this.startUs = startUs;
        this.totals = totals;
    }

    /**
     * The window as its record, with the judging that made it: {@code objectives} and {@code floor}
     * are the ones its requests' verdicts applied (the contract's, or a what-if's), so the result
     * carries them wherever it goes.
     */
    WindowStats toAvro(Contract c, long sizeUs, long graceUs, Contract.Objectives objectives, double floor, boolean isFinal) {
        final double seconds = sizeUs / 1e6;
        final WindowTotals t = totals;
        final int gpus = c.hardware().gpuCount();
        return WindowStats.newBuilder()
                .setContractId(contractId).setScenarioId(scenarioId)
                .setWindowStartUs(Micros.toInstant(startUs)).setWindowEndUs(Micros.toInstant(startUs + sizeUs)).setIsFinal(isFinal)
                .setGraceUs(graceUs).setObjectives(SloFlags.text(objectives)).setQualityFloor(floor)
                .setGpuType(c.hardware().gpuType()).setGpuCount(gpus)
                .setPriceKey(c.hardware().priceKey())
                .setRequestsTotal(t.total()).setRequestsOk(t.ok()).setRequestsError(t.error()).setRequestsTimeout(t.timeout())
                .setRequestsAbandoned(t.abandoned()).setErrorsByClass(new HashMap<>(t.errorsByClass()))
                .setSloPassRequests(t.sloPass()).setQualityPassRequests(t.qualityPass()).setGoodRequests(t.good())
                .setOutputTokensOk(t.outputTokensOk()).setOutputTokensGood(t.outputTokensGood())
                .setGoodputRps(t.goodputRps(seconds))
                .setGoodputTokensPerS(t.goodputTokensPerS(seconds))
                .setGoodFraction(t.goodFraction())
                .setOutputTokensPerS(t.outputTokensPerS(seconds))
                .setTokensPerGpuSecond(t.tokensPerGpuSecond(seconds, gpus))
                .setLateEvents(t.lateEvents()).setRefusedEvents(new HashMap<>(t.refused()))
                .setTtft(summary(t, 0)).setTtfat(summary(t, 1)).setItl(summary(t, 2)).setTpot(summary(t, 3))
                .setE2e(summary(t, 4)).setDispatchLateness(summary(t, 5))
                .setTpotTokenWeightedMeanUs(t.tpotTokenWeightedMeanUs())
                .setLiveStartUs(t.hasLive() ? t.liveFromUs() : startUs).setLiveEndUs(t.hasLive() ? t.liveToUs() : startUs)
                .setCacheRequests(t.cacheCounts()[0]).setCachePromptTokens(t.cacheCounts()[1]).setCachedPromptTokens(t.cacheCounts()[2])
                .setCacheHitRate(t.cacheCounts()[0] == 0 ? null : Definitions.cacheHitRate(t.cacheCounts()[2], t.cacheCounts()[1]))
                .build();
    }

    /** A histogram of the totals as the record carries it: over its metric's whole range. */
    private static LatencySummary summary(WindowTotals t, int histogram) {
        return LatencySummaries.overRange(t.histograms()[histogram], WindowTotals.RANGES_US[histogram]);
    }

    /**
     * The layout of the partial and window stores and of a partial on the internal topic: identity,
     * the counters, the error classes, the six histograms (compact), the refusal reasons, then the
     * hull of the live stretches, if any, from the window's start, then the cache counts.
     */
    static final LiveStore.Codec<WindowAgg> CODEC = new LiveStore.Codec<>() {
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
