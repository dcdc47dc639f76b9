package dev.goodput.sink;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.CostFormulas;
import dev.goodput.definitions.Micros;
import dev.goodput.keys.Keys;
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
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CostProcessor.class);

    static final String NAME = "cost-processor";
    static final String PRICES = "gpu-price-versions";
    static final String RECENT = "recent-windows";

    private final SinkConfig config;
    private final Deserializer<GpuPrice> prices;
    private final Deserializer<WindowStats> windows;
    private final Serializer<GpuPrice> priceBytes;
    private ProcessorContext<String, CostRecord> context;
    private KeyValueStore<String, TreeMap<Long, byte[]>> versions;
    private KeyValueStore<String, ArrayDeque<PricedWindow>> recent;
    /** The latest window start priced under each price key by this task (to say when a price version comes too late). */
    private final Map<String, Long> pricedThrough = new java.util.HashMap<>();

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
        final Long through = pricedThrough.get(p.getPriceKey());
        if (through != null && Micros.of(p.getEffectiveFromUs()) <= through) {
            // the versioned join prices a window once, as it closes: a version dated before windows already priced
            // changes no live cost record, only a replay's
            LOG.warn("price version {} of {} (effective from {}) came after windows it covers were priced (through {}): their live cost"
                    + " records keep the version in force when they closed; a replay prices them with this one",
                    p.getUsdPerGpuHour(), p.getPriceKey(), p.getEffectiveFromUs(), Micros.toInstant(through));
        }
        final TreeMap<Long, byte[]> v = orEmpty(versions.get(p.getPriceKey()));
        v.put(Micros.of(p.getEffectiveFromUs()), priceBytes.serialize(config.pricesTopic(), p));
        versions.put(p.getPriceKey(), v);
    }

    private void onWindow(Record<String, byte[]> record) {
        final WindowStats w = windows.deserialize(config.windowStatsTopic(), record.value());
        if (w == null || !w.getIsFinal()) {
            return;
        }
        final GpuPrice price = priceAt(w.getPriceKey(), Micros.of(w.getWindowStartUs()));
        pricedThrough.merge(w.getPriceKey(), Micros.of(w.getWindowStartUs()), Math::max);
        final PricedWindow s = PricedWindow.of(w, price);
        emit(w, List.of(s), "window", price == null ? "no price version for " + w.getPriceKey() + " in force at "
                + w.getWindowStartUs() : null);
        final String key = new Keys.Scenario(w.getContractId(), w.getScenarioId()).text();
        final ArrayDeque<PricedWindow> held = recent.get(key);
        final ArrayDeque<PricedWindow> last = held == null ? new ArrayDeque<>() : held;
        last.addLast(s);
        final long longest = config.rollingSpans().stream().mapToLong(Duration::toMillis).max().orElse(0) * 1000;
        while (!last.isEmpty() && last.peekFirst().startUs < s.endUs - longest) {
            last.pollFirst();
        }
        recent.put(key, last);
        for (Duration span : config.rollingSpans()) {
            final long from = s.endUs - span.toMillis() * 1000;
            final List<PricedWindow> in = last.stream().filter(x -> x.startUs >= from).toList();
            emit(w, in, label(span), in.stream().anyMatch(x -> !x.priced) ? "a window in the span has no price in force" : null);
        }
    }

    /** One cost record over the given windows (one window, or a rolling span ending with this window). */
    private void emit(WindowStats w, List<PricedWindow> in, String span, String unpriced) {
        final PricedWindow last = in.get(in.size() - 1);
        final long start = in.get(0).startUs;
        final CostFormulas.Span sum = CostFormulas.span(in.stream().map(PricedWindow::segment).toList(), w.getGpuCount());
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
                    .setHourlyCostUsd(seconds <= 0 ? last.hourlyCost * (1 + last.headroom)
                            : CostFormulas.hourlyRate(sum.costUsd(), seconds))
                    .setUtilization(Double.isNaN(utilization) ? null : utilization);
        }
        context.forward(new Record<>(new Keys.Span(w.getContractId(), w.getScenarioId(), span).text(), b.build(),
                last.endUs / 1000 - 1));
    }

    private GpuPrice priceAt(String key, long atUs) {
        final TreeMap<Long, byte[]> v = orEmpty(versions.get(key));
        final Map.Entry<Long, byte[]> e = v.floorEntry(atUs);
        return e == null ? null : prices.deserialize(config.pricesTopic(), e.getValue());
    }

    private static TreeMap<Long, byte[]> orEmpty(TreeMap<Long, byte[]> held) {
        return held == null ? new TreeMap<>() : held;
    }

    private static String label(Duration d) {
        return d.toHours() > 0 && d.toMinutes() % 60 == 0 ? d.toHours() + "h"
                : d.toMinutes() > 0 && d.toSeconds() % 60 == 0 ? d.toMinutes() + "m" : d.toSeconds() + "s";
    }
}
