package dev.goodput.streams;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.metrics.Definitions;
import dev.goodput.metrics.Histograms;
import dev.goodput.metrics.Micros;
import dev.goodput.records.LatencySummaries;
import dev.goodput.serde.ByteSink;
import dev.goodput.serde.Varint;
import dev.goodput.streams.fast.ObjectStore;
import org.HdrHistogram.Histogram;

/**
 * The statistics of one (contract, scenario, window), as live objects: counters and one
 * HdrHistogram per latency metric. Merging two aggregates is exact.
 */
final class WindowAgg {
    final String contractId;
    final String scenarioId;
    final long startUs;
    long total;
    long ok;
    long error;
    long timeout;
    long abandoned;
    final Map<String, Long> errorsByClass = new TreeMap<>();
    long sloPass;
    long qualityPass;
    long good;
    long outputTokensOk;
    long outputTokensGood;
    long sumDecodeUs;
    long sumTokensMinusOne;
    long lateEvents;
    /** Records refused to the DLQ while this window was open, by reason (late ones are in lateEvents too). */
    final Map<String, Long> refused = new TreeMap<>();
    final Histogram ttft;
    final Histogram ttfat;
    final Histogram itl;
    final Histogram tpot;
    final Histogram e2e;
    final Histogram lateness;

    WindowAgg(String contractId, String scenarioId, long startUs) {
        this(contractId, scenarioId, startUs, Histograms.request(), Histograms.request(), Histograms.token(),
                Histograms.token(), Histograms.request(), Histograms.request());
    }

    /** A partial aggregate (one input partition, one heartbeat): histograms that grow as needed. */
    static WindowAgg partial(String contractId, String scenarioId, long startUs) {
        return new WindowAgg(contractId, scenarioId, startUs, Histograms.partial(), Histograms.partial(),
                Histograms.partial(), Histograms.partial(), Histograms.partial(), Histograms.partial());
    }

    private WindowAgg(String contractId, String scenarioId, long startUs, Histogram ttft, Histogram ttfat, Histogram itl,
                      Histogram tpot, Histogram e2e, Histogram lateness) {
        this.contractId = contractId;
        this.scenarioId = scenarioId;
        this.startUs = startUs;
        this.ttft = ttft;
        this.ttfat = ttfat;
        this.itl = itl;
        this.tpot = tpot;
        this.e2e = e2e;
        this.lateness = lateness;
    }

    /** Counts a finished request in this window (its completion window). */
    void addRequest(Sample.Request r) {
        total++;
        Histograms.record(lateness, r.latenessUs(), Histograms.MAX_LATENESS_US);
        final RequestStatus status = RequestStatus.values()[r.status()];
        switch (status) {
            case OK -> ok++;
            case ERROR -> error++;
            case TIMEOUT -> timeout++;
            case ABANDONED -> abandoned++;
        }
        if (status != RequestStatus.OK) {
            errorsByClass.merge(r.errorClass() == null ? status.name().toLowerCase(Locale.ROOT) : r.errorClass(),
                    1L, Long::sum);
            return;
        }
        outputTokensOk += r.outputTokens();
        Histograms.record(ttft, r.ttftUs(), Histograms.MAX_REQUEST_LATENCY_US);
        Histograms.record(e2e, r.e2eUs(), Histograms.MAX_REQUEST_LATENCY_US);
        if (r.ttfatUs() != Definitions.UNDEFINED) {
            Histograms.record(ttfat, r.ttfatUs(), Histograms.MAX_REQUEST_LATENCY_US);
        }
        if (!Double.isNaN(r.tpotUs())) {
            Histograms.record(tpot, Math.round(r.tpotUs()), Histograms.MAX_TOKEN_LATENCY_US);
            sumDecodeUs += r.e2eUs() - r.ttftUs();
            sumTokensMinusOne += r.outputTokens() - 1;
        }
        if (r.sloPass()) {
            sloPass++;
        }
        if (r.qualityPass()) {
            qualityPass++;
        }
        if (r.good()) {
            good++;
            outputTokensGood += r.outputTokens();
        }
    }

    void addGap(long gapUs) {
        Histograms.record(itl, gapUs, Histograms.MAX_TOKEN_LATENCY_US);
    }

    /** Adds another aggregate of the same (contract, scenario, window): counters summed, histograms added. */
    void merge(WindowAgg o) {
        total += o.total;
        ok += o.ok;
        error += o.error;
        timeout += o.timeout;
        abandoned += o.abandoned;
        o.errorsByClass.forEach((k, v) -> errorsByClass.merge(k, v, Long::sum));
        sloPass += o.sloPass;
        qualityPass += o.qualityPass;
        good += o.good;
        outputTokensOk += o.outputTokensOk;
        outputTokensGood += o.outputTokensGood;
        sumDecodeUs += o.sumDecodeUs;
        sumTokensMinusOne += o.sumTokensMinusOne;
        lateEvents += o.lateEvents;
        o.refused.forEach((k, v) -> refused.merge(k, v, Long::sum));
        ttft.add(o.ttft);
        ttfat.add(o.ttfat);
        itl.add(o.itl);
        tpot.add(o.tpot);
        e2e.add(o.e2e);
        lateness.add(o.lateness);
    }

    WindowStats toAvro(Contract c, long sizeUs, long graceUs, boolean isFinal) {
        final double seconds = sizeUs / 1e6;
        final Map<String, Long> classes = new HashMap<>(errorsByClass);
        return WindowStats.newBuilder()
                .setContractId(contractId).setScenarioId(scenarioId)
                .setWindowStartUs(Micros.toInstant(startUs)).setWindowEndUs(Micros.toInstant(startUs + sizeUs)).setIsFinal(isFinal)
                .setGraceUs(graceUs)
                .setGpuType(c.hardware().gpuType()).setGpuCount(c.hardware().gpuCount())
                .setPriceKey(c.hardware().priceKey())
                .setRequestsTotal(total).setRequestsOk(ok).setRequestsError(error).setRequestsTimeout(timeout)
                .setRequestsAbandoned(abandoned).setErrorsByClass(classes)
                .setSloPassRequests(sloPass).setQualityPassRequests(qualityPass).setGoodRequests(good)
                .setOutputTokensOk(outputTokensOk).setOutputTokensGood(outputTokensGood)
                .setGoodputRps(Definitions.perSecond(good, seconds))
                .setGoodputTokensPerS(Definitions.perSecond(outputTokensGood, seconds))
                .setGoodFraction(Definitions.goodFraction(good, total))
                .setOutputTokensPerS(Definitions.perSecond(outputTokensOk, seconds))
                .setTokensPerGpuSecond(Definitions.tokensPerGpuSecond(outputTokensOk, seconds, c.hardware().gpuCount()))
                .setLateEvents(lateEvents).setRefusedEvents(new HashMap<>(refused))
                .setTtft(LatencySummaries.of(ttft)).setTtfat(LatencySummaries.of(ttfat)).setItl(LatencySummaries.of(itl))
                .setTpot(LatencySummaries.of(tpot)).setE2e(LatencySummaries.of(e2e))
                .setDispatchLateness(LatencySummaries.of(lateness))
                .setTpotTokenWeightedMeanUs(sumTokensMinusOne == 0 ? 0
                        : Definitions.tpotTokenWeighted(sumDecodeUs, sumTokensMinusOne))
                .build();
    }


    static final ObjectStore.Codec<WindowAgg> CODEC = new ObjectStore.Codec<>() {
        @Override
        public byte[] encode(WindowAgg a) {
            final ByteSink out = new ByteSink(1024);
            Varint.writeString(out, a.contractId);
            Varint.writeString(out, a.scenarioId);
            for (long v : new long[] {a.startUs, a.total, a.ok, a.error, a.timeout, a.abandoned, a.sloPass, a.qualityPass,
                a.good, a.outputTokensOk, a.outputTokensGood, a.sumDecodeUs, a.sumTokensMinusOne, a.lateEvents}) {
                Varint.writeLong(out, v);
            }
            Varint.writeLong(out, a.errorsByClass.size());
            a.errorsByClass.forEach((k, v) -> {
                Varint.writeString(out, k);
                Varint.writeLong(out, v);
            });
            for (Histogram h : new Histogram[] {a.ttft, a.ttfat, a.itl, a.tpot, a.e2e, a.lateness}) {
                Varint.writeBytes(out, Histograms.encodeCompact(h));
            }
            // appended later: an aggregate written by an older build simply lacks them
            Varint.writeLong(out, a.refused.size());
            a.refused.forEach((k, n) -> {
                Varint.writeString(out, k);
                Varint.writeLong(out, n);
            });
            return out.toByteArray();
        }

        @Override
        public WindowAgg decode(byte[] bytes) {
            final ByteBuffer in = ByteBuffer.wrap(bytes);
            final String contract = Varint.readString(in);
            final String scenario = Varint.readString(in);
            final long[] v = new long[14];
            for (int i = 0; i < v.length; i++) {
                v[i] = Varint.readLong(in);
            }
            final int classes = (int) Varint.readLong(in);
            final Map<String, Long> byClass = new TreeMap<>();
            for (int i = 0; i < classes; i++) {
                byClass.put(Varint.readString(in), Varint.readLong(in));
            }
            final Histogram[] h = new Histogram[6];
            for (int i = 0; i < h.length; i++) {
                h[i] = Histograms.decodeCompact(Varint.readBytes(in));
            }
            final WindowAgg a = new WindowAgg(contract, scenario, v[0], h[0], h[1], h[2], h[3], h[4], h[5]);
            a.total = v[1];
            a.ok = v[2];
            a.error = v[3];
            a.timeout = v[4];
            a.abandoned = v[5];
            a.sloPass = v[6];
            a.qualityPass = v[7];
            a.good = v[8];
            a.outputTokensOk = v[9];
            a.outputTokensGood = v[10];
            a.sumDecodeUs = v[11];
            a.sumTokensMinusOne = v[12];
            a.lateEvents = v[13];
            a.errorsByClass.putAll(byClass);
            if (in.hasRemaining()) {
                final int reasons = (int) Varint.readLong(in);
                for (int i = 0; i < reasons; i++) {
                    a.refused.put(Varint.readString(in), Varint.readLong(in));
                }
            }
            return a;
        }
    };
}
