package dev.goodput.sink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.WindowStats;
import dev.goodput.metrics.CostFormulas;
import dev.goodput.metrics.Micros;
import dev.goodput.topics.Keys;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Prices final window stats with the GPU price version in force at the window's event time (a
 * versioned table: every dated version of every price key is kept, a change never edits history)
 * and emits cost records per window and rolling over configured spans. Each task receives every
 * price record (broadcast) and the final window stats of its scenarios.
 */
final class CostProcessor implements Processor<String, byte[], String, CostRecord> {

    static final String NAME = "cost-processor";
    static final String PRICES = "gpu-price-versions";
    static final String RECENT = "recent-windows";

    private final SinkConfig config;
    private final Deserializer<GpuPrice> prices;
    private final Deserializer<WindowStats> windows;
    private final Serializer<GpuPrice> priceBytes;
    private ProcessorContext<String, CostRecord> context;
    private KeyValueStore<String, byte[]> versions;
    private KeyValueStore<String, byte[]> recent;

    CostProcessor(SinkConfig config, Deserializer<GpuPrice> prices, Deserializer<WindowStats> windows,
                  Serializer<GpuPrice> priceBytes) {
        this.config = config;
        this.prices = prices;
        this.windows = windows;
        this.priceBytes = priceBytes;
    }

    @Override
    public void init(ProcessorContext<String, CostRecord> ctx) {
        this.context = ctx;
        this.versions = ctx.getStateStore(PRICES);
        this.recent = ctx.getStateStore(RECENT);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() != null && record.key().startsWith(SinkTopology.PRICE_PREFIX)) {
            onPrice(record);
        } else {
            onWindow(record);
        }
    }

    /** A price version (checked by {@link PriceGate} before it was broadcast) joins the versions of its key. */
    private void onPrice(Record<String, byte[]> record) {
        final GpuPrice p = prices.deserialize(config.pricesTopic(), record.value());
        final TreeMap<Long, byte[]> v = decodeVersions(versions.get(p.getPriceKey()));
        v.put(Micros.of(p.getEffectiveFromUs()), priceBytes.serialize(config.pricesTopic(), p));
        versions.put(p.getPriceKey(), encodeVersions(v));
    }

    private void onWindow(Record<String, byte[]> record) {
        final WindowStats w = windows.deserialize(config.windowStatsTopic(), record.value());
        if (w == null || !w.getIsFinal()) {
            return;
        }
        final GpuPrice price = priceAt(w.getPriceKey(), Micros.of(w.getWindowStartUs()));
        final Summary s = Summary.of(w, price);
        emit(w, List.of(s), "window", price == null ? "no price version for " + w.getPriceKey() + " in force at "
                + w.getWindowStartUs() : null);
        final String key = new Keys.Scenario(w.getContractId(), w.getScenarioId()).text();
        final ArrayDeque<Summary> last = Summary.decodeAll(recent.get(key));
        last.addLast(s);
        final long longest = config.rollingSpans().stream().mapToLong(Duration::toMillis).max().orElse(0) * 1000;
        while (!last.isEmpty() && last.peekFirst().startUs < s.endUs - longest) {
            last.pollFirst();
        }
        recent.put(key, Summary.encodeAll(last));
        for (Duration span : config.rollingSpans()) {
            final long from = s.endUs - span.toMillis() * 1000;
            final List<Summary> in = last.stream().filter(x -> x.startUs >= from).toList();
            emit(w, in, label(span), in.stream().anyMatch(x -> !x.priced) ? "a window in the span has no price in force" : null);
        }
    }

    /** One cost record over the given windows (one window, or a rolling span ending with this window). */
    private void emit(WindowStats w, List<Summary> in, String span, String unpriced) {
        final Summary last = in.get(in.size() - 1);
        final long start = in.get(0).startUs;
        final CostFormulas.Span sum = CostFormulas.span(in.stream().map(Summary::segment).toList(), w.getGpuCount());
        final double seconds = sum.seconds();
        final double achieved = CostFormulas.achievedTokensPerS(sum.outputTokensOk(), seconds);
        final long requests = in.stream().mapToLong(x -> x.requests).sum();
        final long good = in.stream().mapToLong(x -> x.good).sum();
        final boolean priced = unpriced == null;
        final CostRecord.Builder b = CostRecord.newBuilder().setContractId(w.getContractId()).setScenarioId(w.getScenarioId())
                .setSpan(span).setWindowStartUs(Micros.toInstant(start)).setWindowEndUs(Micros.toInstant(last.endUs))
                .setPriceKey(w.getPriceKey()).setPriced(priced).setUnpricedReason(unpriced).setGpuCount(w.getGpuCount())
                .setWindowSeconds(seconds).setRequestsTotal(requests).setGoodRequests(good).setOutputTokensOk(sum.outputTokensOk())
                .setOutputTokensGood(sum.outputTokensGood()).setAchievedTokensPerS(achieved);
        if (priced) {
            final double perGpuHour = seconds <= 0 ? last.usdPerGpuHour
                    : CostFormulas.perGpuHour(sum.gpuCostUsd(), w.getGpuCount(), seconds);
            final double compute = CostFormulas.computeCostPerMillion(perGpuHour, w.getGpuCount(), achieved);
            final double successful = CostFormulas.costPerSuccessfulMillion(sum.costUsd(), sum.outputTokensGood());
            final double utilization = CostFormulas.utilization(achieved, config.peakTokensPerS().get(w.getContractId()));
            b.setUsdPerGpuHour(last.usdPerGpuHour).setPriceEffectiveFromUs(Micros.toInstant(last.priceEffectiveUs))
                    .setPriceSource(last.priceSource).setComputeCostPerMUsd(Double.isNaN(compute) ? null : compute)
                    .setCostPerSuccessfulMUsd(Double.isNaN(successful) ? null : successful)
                    .setHourlyCostUsd(seconds <= 0 ? null : CostFormulas.hourlyRate(sum.costUsd(), seconds))
                    .setUtilization(Double.isNaN(utilization) ? null : utilization);
        }
        context.forward(new Record<>(new Keys.Span(w.getContractId(), w.getScenarioId(), span).text(), b.build(),
                last.endUs / 1000 - 1));
    }

    private GpuPrice priceAt(String key, long atUs) {
        final TreeMap<Long, byte[]> v = decodeVersions(versions.get(key));
        final Map.Entry<Long, byte[]> e = v.floorEntry(atUs);
        return e == null ? null : prices.deserialize(config.pricesTopic(), e.getValue());
    }

    private static String label(Duration d) {
        return d.toHours() > 0 && d.toMinutes() % 60 == 0 ? d.toHours() + "h"
                : d.toMinutes() > 0 && d.toSeconds() % 60 == 0 ? d.toMinutes() + "m" : d.toSeconds() + "s";
    }



    static TreeMap<Long, byte[]> decodeVersions(byte[] b) {
        final TreeMap<Long, byte[]> v = new TreeMap<>();
        if (b == null) {
            return v;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b))) {
            final int n = in.readInt();
            for (int i = 0; i < n; i++) {
                final long at = in.readLong();
                final byte[] p = new byte[in.readInt()];
                in.readFully(p);
                v.put(at, p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return v;
    }

    private static byte[] encodeVersions(TreeMap<Long, byte[]> v) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(v.size());
            for (Map.Entry<Long, byte[]> e : v.entrySet()) {
                out.writeLong(e.getKey());
                out.writeInt(e.getValue().length);
                out.write(e.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** What a rolling span needs of one priced window. */
    static final class Summary {
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

        static Summary of(WindowStats w, GpuPrice p) {
            final Summary s = new Summary();
            s.startUs = Micros.of(w.getWindowStartUs());
            s.endUs = Micros.of(w.getWindowEndUs());
            s.seconds = (s.endUs - s.startUs) / 1e6;
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

        static byte[] encodeAll(ArrayDeque<Summary> all) {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(all.size());
                for (Summary s : all) {
                    out.writeLong(s.startUs);
                    out.writeLong(s.endUs);
                    out.writeDouble(s.seconds);
                    out.writeLong(s.tokensOk);
                    out.writeLong(s.tokensGood);
                    out.writeLong(s.requests);
                    out.writeLong(s.good);
                    out.writeBoolean(s.priced);
                    out.writeDouble(s.usdPerGpuHour);
                    out.writeDouble(s.hourlyCost);
                    out.writeDouble(s.headroom);
                    out.writeLong(s.priceEffectiveUs);
                    out.writeUTF(s.priceSource == null ? "" : s.priceSource);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }

        static ArrayDeque<Summary> decodeAll(byte[] b) {
            final ArrayDeque<Summary> all = new ArrayDeque<>();
            if (b == null) {
                return all;
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b))) {
                final int n = in.readInt();
                for (int i = 0; i < n; i++) {
                    final Summary s = new Summary();
                    s.startUs = in.readLong();
                    s.endUs = in.readLong();
                    s.seconds = in.readDouble();
                    s.tokensOk = in.readLong();
                    s.tokensGood = in.readLong();
                    s.requests = in.readLong();
                    s.good = in.readLong();
                    s.priced = in.readBoolean();
                    s.usdPerGpuHour = in.readDouble();
                    s.hourlyCost = in.readDouble();
                    s.headroom = in.readDouble();
                    s.priceEffectiveUs = in.readLong();
                    s.priceSource = in.readUTF();
                    all.add(s);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return all;
        }
    }
}
