package dev.goodput.runner;

import java.io.PrintStream;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.sink.ResultsFollower;
import dev.goodput.keys.Keys;

/**
 * Prints one row per closed window from llm.window-stats (committed records only): scenario,
 * requests, good %, TTFT p50/p99, ITL p99, TPOT p99, goodput.
 */
final class LiveTable implements AutoCloseable {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final String HEADER = String.format(Locale.ROOT, "%-8s %-20s %8s %7s %9s %9s %8s %8s %9s %11s %10s %10s",
            "window", "scenario", "requests", "good %", "TTFT p50", "TTFT p99", "ITL p99", "TPOT p99", "goodput", "good tok/s",
            "$/1M comp", "$/1M good");

    /** Final windows wait here for their cost record, so each row shows both (touched on the follower's thread only). */
    private final Map<Keys.Window, WindowStats> pending = new LinkedHashMap<>();
    private final PrintStream out;
    private final ResultsFollower follower;
    private int rows;
    /** Whether the table has said once what "thin" means. */
    private boolean thinSaid;
    /** Whether the run's windows have all come, final and priced. */
    private final Settling settling = new Settling(System.nanoTime());

    LiveTable(Properties client, SchemaRegistryClient registry, String topic, String costTopic, PrintStream out) {
        this.out = out;
        // the table shows what closes from now on, not the history kept in the data folder
        this.follower = new ResultsFollower(client, registry, topic, costTopic, "goodput-live-table", true,
                new ResultsFollower.Listener() {
                    @Override
                    public void onWindow(WindowStats w) {
                        final Keys.Window key = new Keys.Window(w.getContractId(), w.getScenarioId(), Micros.of(w.getWindowStartUs()));
                        settling.windowSeen(key, System.nanoTime());
                        if (w.getIsFinal()) {
                            pending.put(key, w);
                        }
                    }

                    @Override
                    public void onCost(CostRecord c) {
                        final WindowStats w = !c.getSpan().equals("window") ? null
                                : pending.remove(window(c));
                        if (w != null) {
                            print(w, c);
                            settling.windowPriced(window(c), System.nanoTime());
                        } else {
                            settling.recordSeen(System.nanoTime());
                        }
                    }
                });
    }

    private void print(WindowStats w, CostRecord c) {
        final boolean thin = Definitions.thinWindow(w.getRequestsTotal());
        if (rows++ % 20 == 0) {
            out.println(HEADER);
        }
        out.println(String.format(Locale.ROOT, "%-8s %-20s %8d %6.1f%% %9s %9s %8s %8s %7.2f/s %11.1f %10s %10s",
                TIME.format(w.getWindowStartUs()), w.getScenarioId(), w.getRequestsTotal(), 100 * w.getGoodFraction(),
                ms(w.getTtft().getCount(), w.getTtft().getP50Us()), ms(w.getTtft().getCount(), w.getTtft().getP99Us()),
                ms(w.getItl().getCount(), w.getItl().getP99Us()), ms(w.getTpot().getCount(), w.getTpot().getP99Us()),
                w.getGoodputRps(), w.getGoodputTokensPerS(),
                thin ? "thin" : dollars(c.getComputeCostPerMUsd(), c.getPriced()),
                thin ? "thin" : dollars(c.getCostPerSuccessfulMUsd(), c.getPriced())));
        if (thin && !thinSaid) {
            thinSaid = true;
            out.println("         thin: fewer than " + Definitions.THIN_WINDOW_REQUESTS + " requests in the window; its requests count in"
                    + " the totals, its own cost is not shown");
        }
        if (!w.getRefusedEvents().isEmpty()) {
            out.println("         refused to the DLQ while this window was open: " + new TreeMap<>(w.getRefusedEvents())
                    .entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")));
        }
    }

    /** A latency in ms, or "-" where the window measured none (no OK request): 0.0ms would read as instant. */
    static String ms(long count, long us) {
        return count == 0 ? "-" : String.format(Locale.ROOT, "%.1fms", us / 1e3);
    }

    /**
     * Waits until every window this table has seen is final and priced, every scenario in
     * {@code measuredScenarios} has had a priced window, and nothing new came for {@code quiet}; at
     * most {@code timeout}. Returns what is still missing, empty when settled.
     */
    String awaitSettled(Set<String> measuredScenarios, Duration quiet, Duration timeout) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (settling.settled(measuredScenarios, System.nanoTime(), quiet.toNanos())) {
                return "";
            }
            Thread.sleep(100);
        }
        return settling.missing(measuredScenarios);
    }

    private static String dollars(Double v, boolean priced) {
        return !priced ? "unpriced" : v == null ? "-" : String.format(Locale.ROOT, "$%.4f", v);
    }

    @Override
    public void close() {
        follower.close();
    }

    private static Keys.Window window(CostRecord c) {
        return new Keys.Window(c.getContractId(), c.getScenarioId(), Micros.of(c.getWindowStartUs()));
    }
}
