package dev.goodput.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import dev.goodput.metrics.Definitions;
import dev.goodput.metrics.WindowTotals;
import dev.goodput.streams.fast.ObjectStore;
import dev.goodput.topics.Keys;

/**
 * One partition's partial aggregates, by window: what its finished requests and refused records
 * add to each (contract, scenario, window) until a heartbeat sends them to the window's merger, so
 * one record travels per window and heartbeat instead of one per request.
 */
final class PartialAggregates {
    private final ObjectStore<WindowAgg> store;
    private final long windowUs;
    private final long graceUs;
    private Keys.Window lastWindow;
    private String lastKey;

    PartialAggregates(ObjectStore<WindowAgg> store, long windowUs, long graceUs) {
        this.store = store;
        this.windowUs = windowUs;
        this.graceUs = graceUs;
    }

    void load() {
        store.load();
    }

    int size() {
        return store.size();
    }

    /**
     * Adds a finished request to the window of its completion, and each gap between its chunks to
     * the window of the later chunk. Every chunk here came on time (a late token event never joins),
     * and the request held its gaps' windows open until it finished, so each gap goes to its own window.
     */
    void add(Sample.Request r) {
        final long start = Definitions.windowStart(r.completionUs(), windowUs);
        final WindowAgg agg = of(new Keys.Window(r.contractId(), r.scenarioId(), start));
        agg.totals.add(r.outcome());
        if (r.outcome().status() != WindowTotals.Status.OK) {
            return;
        }
        for (int i = 0; i < r.gapsUs().length; i++) {
            final long gapStart = Definitions.windowStart(r.gapTimesUs()[i], windowUs);
            if (gapStart == start) {
                agg.totals.addGap(r.gapsUs()[i]);
            } else {
                of(new Keys.Window(r.contractId(), r.scenarioId(), gapStart)).totals.addGap(r.gapsUs()[i]);
            }
        }
    }

    /**
     * Counts a refused record in the window of its log time: the window records say what was refused
     * while they were open. That window is open, since no watermark passes the clock of the record's own topic.
     */
    void refused(String contractId, String scenarioId, long logUs, String reason) {
        final WindowAgg a = of(new Keys.Window(contractId, scenarioId, Definitions.windowStart(logUs, windowUs)));
        a.totals.refused(reason, "late".equals(reason));
    }

    private WindowAgg of(Keys.Window k) {
        // consecutive requests mostly finish in the same window: its key text is built once
        if (!k.equals(lastWindow)) {
            lastWindow = k;
            lastKey = k.text();
        }
        final String key = lastKey;
        WindowAgg a = store.get(key);
        if (a == null) {
            a = new WindowAgg(k.contractId(), k.scenarioId(), k.startUs());
            store.put(key, a);
        } else {
            store.touch(key);
        }
        return a;
    }

    /**
     * Hands over (and drops) the partials of windows that {@code closableUs} (the watermark about to be
     * sent) may close, or all of them with {@code Long.MAX_VALUE}; in key order, so a replay sends the
     * same records in the same order.
     */
    void flush(long closableUs, Consumer<WindowAgg> send) {
        if (store.size() == 0) {
            return;
        }
        final List<String> keys = new ArrayList<>(store.entries().keySet());
        keys.sort(null);
        for (String key : keys) {
            final WindowAgg a = store.get(key);
            if (closableUs != Long.MAX_VALUE && a.startUs + windowUs + graceUs > closableUs) {
                continue;
            }
            send.accept(a);
            store.remove(key);
        }
    }
}
