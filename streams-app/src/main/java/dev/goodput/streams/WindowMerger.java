package dev.goodput.streams;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.goodput.assembly.LiveStore;
import dev.goodput.assembly.WindowAgg;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.assembly.time.WindowCloser;
import dev.goodput.keys.Keys;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage B: merges the partial aggregates of every upstream partition into one aggregate per
 * (contract, scenario, window) and emits window stats: live updates (is_final=false) at most every
 * live interval, and exactly one final record per window once every upstream partition's event time
 * has passed the window's end plus the grace. Closing on the slowest partition, not the fastest,
 * makes a replay of retained topics close windows on the same data as the live run did.
 */
final class WindowMerger implements Processor<String, byte[], String, WindowStats> {

    static final String NAME = "window-merger";
    /** v2: histograms in the compact encoding (see {@link GoodputTopology#SAMPLES} on names). */
    static final String WINDOWS = "window-aggregates-v2";
    static final String WATERMARKS = "upstream-watermarks";

    private static final Logger LOG = LoggerFactory.getLogger(WindowMerger.class);

    private final StreamsSettings config;
    private ProcessorContext<String, WindowStats> context;
    private LiveStore<WindowAgg> windows;
    private LiveStore<long[]> watermarks;
    private final Set<String> changedSinceLive = new HashSet<>();
    private final Set<String> foreignContracts = new HashSet<>();
    private WindowCloser closer;
    private long lateSamples;

    WindowMerger(StreamsSettings config) {
        this.config = config;
    }

    @Override
    public void init(ProcessorContext<String, WindowStats> ctx) {
        this.context = ctx;
        this.windows = new LiveStore<>(KafkaByteStore.of(ctx, WINDOWS), WindowAgg.CODEC);
        this.watermarks = new LiveStore<>(KafkaByteStore.of(ctx, WATERMARKS), LiveStore.LONGS);
        windows.load();
        watermarks.load();
        closer = new WindowCloser(config.upstreamPartitions(), config.windowUs(), config.graceUs());
        watermarks.entries().forEach((k, v) -> closer.observe(Integer.parseInt(k), v[0]));
        LOG.info("window merger {} restored {} open windows, watermarks {}", ctx.taskId(), windows.size(),
                closer.watermarks());
        ctx.schedule(config.liveInterval(), PunctuationType.WALL_CLOCK_TIME, t -> emitLive());
    }

    @Override
    public void process(Record<String, byte[]> record) {
        try {
            merge(record);
        } finally {
            LiveStore.writeBack(windows, watermarks);
        }
    }

    private void merge(Record<String, byte[]> record) {
        final Sample sample = Sample.CODEC.decode(record.value());
        if (sample instanceof Sample.Partial p) {
            add(p.agg());
        }
        final String key = Integer.toString(sample.upstream());
        final long[] wm = watermarks.get(key);
        if (wm == null || sample.watermarkUs() > wm[0]) {
            watermarks.put(key, new long[] {sample.watermarkUs()});
            if (closer.observe(sample.upstream(), sample.watermarkUs())) {
                closeWindows();
            }
        }
    }

    private void add(WindowAgg partial) {
        final WindowAgg agg = windowFor(partial.contractId, partial.scenarioId, partial.startUs);
        if (agg == null) {
            // its window closed already (an upstream partition joined late): counted, not merged
            lateSamples += partial.totals.total();
            LOG.warn("partial aggregate of {} requests for a closed window {}|{}|{} ({} requests so far)", partial.totals.total(),
                    partial.contractId, partial.scenarioId, partial.startUs, lateSamples);
            return;
        }
        agg.totals.add(partial.totals);
    }

    /** The open aggregate for a window, created on first use; null when that window has already closed. */
    private WindowAgg windowFor(String contractId, String scenarioId, long startUs) {
        final String key = new Keys.Window(contractId, scenarioId, startUs).text();
        WindowAgg a = windows.get(key);
        if (a == null) {
            if (closer.closed(startUs)) {
                return null;
            }
            a = new WindowAgg(contractId, scenarioId, startUs);
            windows.put(key, a);
        } else {
            windows.touch(key);
        }
        changedSinceLive.add(key);
        return a;
    }

    private void closeWindows() {
        final long wm = closer.closedThroughUs();
        LOG.debug("watermark {} closes windows ending at or before it minus the grace", wm);
        final List<Map.Entry<String, WindowAgg>> closing = new ArrayList<>();
        for (Map.Entry<String, WindowAgg> e : windows.entries().entrySet()) {
            if (closer.closed(e.getValue().startUs)) {
                closing.add(e);
            }
        }
        // emit in window order, then key order: identical input gives identical output order
        closing.sort((a, b) -> a.getValue().startUs != b.getValue().startUs
                ? Long.compare(a.getValue().startUs, b.getValue().startUs) : a.getKey().compareTo(b.getKey()));
        for (Map.Entry<String, WindowAgg> e : closing) {
            LOG.debug("task {} closes {} with {} requests at watermarks {}", context.taskId(), e.getKey(),
                    e.getValue().totals.total(), watermarks.entries().entrySet().stream().map(w -> w.getKey() + "=" + w.getValue()[0]).toList());
            if (emit(e.getValue(), true)) {
                windows.remove(e.getKey());
                changedSinceLive.remove(e.getKey());
            }
        }
    }

    private void emitLive() {
        final List<String> keys = new ArrayList<>(changedSinceLive);
        keys.sort(null);
        for (String k : keys) {
            final WindowAgg a = windows.get(k);
            if (a != null) {
                emit(a, false);
            }
        }
        changedSinceLive.clear();
    }

    /**
     * Forwards a window's record; false, and the window kept, when its contract is not one this
     * instance was started with. That happens when the state was restored from a run under another
     * contract (the same application id and data directory): the record needs that contract's
     * hardware and price key, so the window waits in the store for an instance that has it.
     */
    private boolean emit(WindowAgg a, boolean isFinal) {
        final Contract c = config.contracts().get(a.contractId);
        if (c == null) {
            if (foreignContracts.add(a.contractId)) {
                LOG.warn("windows of contract {} (restored state of another run) are kept, not emitted: this instance was"
                        + " started with {}; start one with that contract to emit them", a.contractId,
                        config.contracts().keySet());
            }
            return false;
        }
        final String key = new Keys.Window(a.contractId, a.scenarioId, a.startUs).text();
        context.forward(new Record<>(key, WindowRecord.toAvro(a, c, config.windowUs(), config.graceUs(), config.objectives(c),
                config.selection().qualityFloor() != null ? config.selection().qualityFloor() : c.quality().floor(), isFinal),
                (a.startUs + config.windowUs()) / 1_000 - 1));
        return true;
    }
}
