package dev.goodput.report;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.ServerMetrics;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.Micros;
import dev.goodput.records.DoorChecks;
import dev.goodput.records.TokenRuns;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.topics.DeadLetters;
import dev.goodput.keys.Keys;
import dev.goodput.topics.Topics;

/**
 * Every record of one run, read back from the topics: the generator's run summaries and request
 * events, and the results (verdicts, window statistics, cost) of the live pipeline or of a replay
 * (whose result topics end in {@code .<replay id>}).
 *
 * @param windows one record per scenario and window: the final one, or the latest live update
 *                when the window has not closed
 * @param costs   the per-window cost records of those windows
 * @param prices  every price version of the price keys the windows name
 * @param skipped records that could not be read back, by "topic (reason)": the report states them
 * @param serverMetrics the engine's own metrics sampled during the run ({@code --server-metrics}), oldest first
 * @param deadLetters records refused to the DLQ during the run, by reason: the sum of the run's
 *                windows' {@code refused_events}, or what the demo counted on the DLQ itself
 *                ({@link #withDeadLetters}), which also holds records no window could be named for
 * @param chunks  the content chunks of the run's requests (arrivals and tokens), from the token topic:
 *                what per-request ITLs and the peers' result files need
 * @param refused the run's raw events the door checks refused ({@link DoorChecks}, the same function
 *                the streams-app refuses them with), by reason: they are in no figure, account or
 *                memory of the report, only counted here
 */
public record RunRecords(String runId, String replayId, List<RunSummary> runs, List<RequestEvent> requests,
                         List<RequestVerdict> verdicts, List<WindowStats> windows, List<CostRecord> costs,
                         List<GpuPrice> prices, Map<String, Long> skipped, Map<String, Long> deadLetters,
                         ChunkArrivals chunks, List<ServerMetrics> serverMetrics, Map<String, Long> refused) {

    /** The same run with the DLQ counts taken on the DLQ itself (the demo knows where its run began there). */
    public RunRecords withDeadLetters(Map<String, Long> counted) {
        return new RunRecords(runId, replayId, runs, requests, verdicts, windows, costs, prices, skipped,
                new TreeMap<>(counted), chunks, serverMetrics, refused);
    }

    /** The same run with these token events' chunks (as read from the token topic). */
    public RunRecords withTokens(List<TokenEvent> tokens) {
        final ChunkArrivals c = new ChunkArrivals();
        tokens.stream().filter(t -> t.getRunId().equals(runId)).flatMap(t -> TokenRuns.chunks(t).stream()).forEach(c::add);
        return new RunRecords(runId, replayId, runs, requests, verdicts, windows, costs, prices, skipped, deadLetters, c,
                serverMetrics, refused);
    }

    /** Refused records by reason, summed over the windows' {@code refused_events}. */
    static Map<String, Long> refusedInWindows(List<WindowStats> windows) {
        final Map<String, Long> out = new TreeMap<>();
        windows.forEach(w -> w.getRefusedEvents().forEach((k, v) -> out.merge(k.toString(), v, Long::sum)));
        return out;
    }

    /** Measured requests: the run's accepted request events, warm-up excluded (what the verdicts answer). */
    public long measuredRequests() {
        return requests.stream().filter(r -> !r.getWarmup()).count();
    }

    /** Measured requests as the generators counted them in their run summaries (warm-up excluded). */
    public long generatorsCounted() {
        return runs.stream().mapToLong(r -> r.getRequests() - r.getWarmupRequests()).sum();
    }

    /** Reads the run from the cluster; {@code runId} null means the run that ended last; {@code replayId} null means the live results. */
    public static RunRecords load(Properties client, SchemaRegistryClient registry, String runId, String replayId) {
        return load(client, registry, runId, replayId, DoorChecks.NO_CAP);
    }

    /**
     * Reads the run, its raw events through the door checks the streams-app applies ({@code maxChunks}
     * from the contracts, {@link DoorChecks#maxChunks}): a refused event is counted in
     * {@link #refused} by reason and kept nowhere else.
     */
    public static RunRecords load(Properties client, SchemaRegistryClient registry, String runId, String replayId, int maxChunks) {
        final String suffix = replayId == null ? "" : "." + replayId;
        final TopicSnapshot.Skipped skipped = new TopicSnapshot.Skipped();
        final List<RunSummary> runs = TopicSnapshot.read(client, Topics.RUNS.name(), new AvroDeserializer<>(registry, RunSummary.class),
                skipped);
        final String id = runId != null ? runId : runs.stream().max(Comparator.comparing(RunSummary::getEndedUs))
                .map(RunSummary::getRunId).orElseThrow(() -> new IllegalStateException(
                        "no run on " + Topics.RUNS.name() + ": run the generator first, or pass --run-id"));
        // the run's contracts, as its generators stated them: an event of another contract is refused, as the app refuses it
        final Set<String> contracts = runs.stream().filter(r -> r.getRunId().equals(id)).map(RunSummary::getContractId)
                .collect(Collectors.toSet());
        final Map<String, Long> refused = new TreeMap<>();
        final List<RequestEvent> admitted = new ArrayList<>();
        final Set<String> ids = new HashSet<>();
        TopicSnapshot.forEachStamped(client, Topics.REQUESTS.name(), new AvroDeserializer<>(registry, RequestEvent.class),
                (e, partition, logMs) -> {
                    if (!e.getRunId().equals(id)) {
                        return;
                    }
                    // warm-up events are no part of any figure: the streams-app drops them before its checks
                    final DoorChecks.Problem p = e.getWarmup() ? null : contracts.isEmpty() ? DoorChecks.request(e, logMs, maxChunks)
                            : DoorChecks.request(e, logMs, maxChunks, contracts);
                    if (p != null) {
                        refused.merge(p.reason(), 1L, Long::sum);
                    } else if (!ids.add(e.getRequestId())) {
                        // a re-publish (at-least-once): the streams-app takes the first and refuses the copy
                        refused.merge("duplicate", 1L, Long::sum);
                    } else {
                        admitted.add(e);
                    }
                }, skipped);
        final RunRecords r = select(id, replayId, runs, admitted,
                TopicSnapshot.read(client, Topics.VERDICTS.name() + suffix, new AvroDeserializer<>(registry, RequestVerdict.class), skipped),
                TopicSnapshot.read(client, Topics.WINDOW_STATS.name() + suffix, new AvroDeserializer<>(registry, WindowStats.class), skipped),
                TopicSnapshot.read(client, Topics.COST.name() + suffix, new AvroDeserializer<>(registry, CostRecord.class), skipped),
                TopicSnapshot.read(client, Topics.PRICES.name() + suffix, new AvroDeserializer<>(registry, GpuPrice.class), skipped));
        final ChunkArrivals chunks = new ChunkArrivals();
        TopicSnapshot.forEachStamped(client, Topics.TOKENS.name(), new AvroDeserializer<>(registry, TokenEvent.class),
                (t, partition, logMs) -> {
                    if (!t.getRunId().equals(r.runId()) || t.getWarmup()) {
                        return;
                    }
                    final DoorChecks.Problem foreign = contracts.isEmpty() ? null : DoorChecks.contract(t.getContractId(), contracts);
                    for (TokenEvent c : TokenRuns.chunks(t)) {
                        final DoorChecks.Problem p = foreign != null ? foreign
                                : DoorChecks.token(c.getChunkIndex(), Micros.of(c.getArrivalTimeUs()), logMs, maxChunks);
                        if (p != null) {
                            refused.merge(p.reason(), 1L, Long::sum);
                        } else if (!chunks.add(c)) {
                            refused.merge("chunks_out_of_order", 1L, Long::sum);
                        }
                    }
                }, skipped);
        // spans the receiver refused at its door: on the DLQ with the run's id (the streams-app's refusals are in the windows)
        TopicSnapshot.forEach(client, Topics.DLQ.name(), new RunRefusals(r.runId()),
                (reason, partition) -> refused.merge("span: " + reason, 1L, Long::sum), skipped);
        // the engine's own samples of the run, where its generators took any (--server-metrics)
        final List<ServerMetrics> samples = TopicSnapshot.read(client, Topics.SERVER_METRICS.name(),
                new AvroDeserializer<>(registry, ServerMetrics.class), skipped).stream()
                .filter(m -> m.getRunId().equals(r.runId())).collect(Collectors.toList());
        return new RunRecords(r.runId(), r.replayId(), r.runs(), r.requests(), r.verdicts(), r.windows(), r.costs(), r.prices(),
                skipped.counts(), r.deadLetters(), chunks, samples, refused);
    }

    /** Picks one run out of whole topics: its windows are those {@link RunWindows} says hold it. */
    public static RunRecords select(String runId, String replayId, List<RunSummary> allRuns, List<RequestEvent> allRequests,
                                    List<RequestVerdict> allVerdicts, List<WindowStats> allWindows, List<CostRecord> allCosts,
                                    List<GpuPrice> allPrices) {
        final List<RunSummary> runs = allRuns.stream().filter(r -> r.getRunId().equals(runId)).collect(Collectors.toList());
        runs.addAll(incomplete(runId, runs, allRequests));
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("no run " + runId + " on " + Topics.RUNS.name() + " (runs there: "
                    + allRuns.stream().map(RunSummary::getRunId).distinct().collect(Collectors.joining(", ")) + ")");
        }
        final Set<Keys.Scenario> keys = runs.stream().map(r -> new Keys.Scenario(r.getContractId(), r.getScenarioId()))
                .collect(Collectors.toSet());
        final Map<Keys.Scenario, long[][]> live = RunWindows.stretches(runId, allRequests, allVerdicts);
        final Map<Keys.Window, WindowStats> windows = new LinkedHashMap<>();
        for (WindowStats w : allWindows) {
            final Keys.Scenario scenario = new Keys.Scenario(w.getContractId(), w.getScenarioId());
            if (keys.contains(scenario) && RunWindows.holds(live.get(scenario), w)) {
                final Keys.Window k = new Keys.Window(w.getContractId(), w.getScenarioId(), Micros.of(w.getWindowStartUs()));
                final WindowStats seen = windows.get(k);
                if (seen == null || !seen.getIsFinal()) {
                    windows.put(k, w);
                }
            }
        }
        final Map<Keys.Window, CostRecord> costs = new LinkedHashMap<>();
        for (CostRecord c : allCosts) {
            final Keys.Window k = new Keys.Window(c.getContractId(), c.getScenarioId(), Micros.of(c.getWindowStartUs()));
            if ("window".equals(c.getSpan()) && windows.containsKey(k)) {
                costs.put(k, c);
            }
        }
        final Set<String> priceKeys = windows.values().stream().map(WindowStats::getPriceKey).collect(Collectors.toSet());
        final List<WindowStats> sorted = new ArrayList<>(windows.values());
        sorted.sort(Comparator.comparing(WindowStats::getWindowStartUs).thenComparing(WindowStats::getScenarioId));
        return new RunRecords(runId, replayId, runs,
                allRequests.stream().filter(r -> r.getRunId().equals(runId)).collect(Collectors.toList()),
                allVerdicts.stream().filter(v -> v.getRunId().equals(runId)).collect(Collectors.toList()),
                sorted, new ArrayList<>(costs.values()),
                allPrices.stream().filter(p -> priceKeys.contains(p.getPriceKey())).collect(Collectors.toList()), Map.of(),
                refusedInWindows(sorted), new ChunkArrivals(), List.of(), Map.of());
    }

    /** The completion times of the run's measured requests by contract and scenario, ascending. */
    private static Map<Keys.Scenario, long[]> completions(String runId, List<RequestEvent> requests, List<RequestVerdict> verdicts) {
        final Map<Keys.Scenario, List<Long>> times = new LinkedHashMap<>();
        for (RequestEvent e : requests) {
            if (e.getRunId().equals(runId) && !e.getWarmup()) {
                times.computeIfAbsent(new Keys.Scenario(e.getContractId(), e.getScenarioId()), k -> new ArrayList<>())
                        .add(Micros.of(e.getCompletionTimeUs()));
            }
        }
        for (RequestVerdict v : verdicts) {
            if (v.getRunId().equals(runId)) {
                times.computeIfAbsent(new Keys.Scenario(v.getContractId(), v.getScenarioId()), k -> new ArrayList<>())
                        .add(Micros.of(v.getCompletionTimeUs()));
            }
        }
        final Map<Keys.Scenario, long[]> out = new LinkedHashMap<>();
        times.forEach((k, t) -> out.put(k, t.stream().mapToLong(Long::longValue).sorted().toArray()));
        return out;
    }

    /** The index of the first value at or past {@code value} in an ascending array. */
    private static int from(long[] ascending, long value) {
        int lo = 0;
        int hi = ascending.length;
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            if (ascending[mid] < value) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Requests of other runs in this run's windows: a window holds every request of its contract and
     * scenario that completed in it, so two runs of one scenario at the same time share windows. The
     * window figures then include the others' requests; the per-request files never do.
     */
    public long foreignRequestsInWindows() {
        final Map<Keys.Scenario, long[]> own = completions(runId, List.of(), verdicts);
        long foreign = 0;
        for (WindowStats w : windows) {
            final long[] t = own.get(new Keys.Scenario(w.getContractId(), w.getScenarioId()));
            final long mine = t == null ? 0 : from(t, Micros.of(w.getWindowEndUs())) - from(t, Micros.of(w.getWindowStartUs()));
            foreign += Math.max(0, w.getRequestsTotal() - mine);
        }
        return foreign;
    }

    /** What a scenario's generator is called when it left no run summary (killed mid-scenario). */
    public static final String INCOMPLETE = "incomplete: no run summary";

    /**
     * Run summaries made from the request events of the scenarios that have none: a generator killed
     * mid-scenario publishes its request events but never its summary, and the report used to drop
     * such a scenario from its headline, scenario table and windows. The summary made here counts the
     * requests by status and spans their times; its arrival and generator say {@value #INCOMPLETE},
     * and it knows no rate, lateness or CPU.
     */
    static List<RunSummary> incomplete(String runId, List<RunSummary> runs, List<RequestEvent> allRequests) {
        final Set<Keys.Scenario> summarised = runs.stream().map(r -> new Keys.Scenario(r.getContractId(), r.getScenarioId()))
                .collect(Collectors.toSet());
        final Map<Keys.Scenario, List<RequestEvent>> orphaned = new LinkedHashMap<>();
        for (RequestEvent e : allRequests) {
            final Keys.Scenario k = new Keys.Scenario(e.getContractId(), e.getScenarioId());
            if (e.getRunId().equals(runId) && !summarised.contains(k)) {
                orphaned.computeIfAbsent(k, x -> new ArrayList<>()).add(e);
            }
        }
        final List<RunSummary> out = new ArrayList<>();
        for (List<RequestEvent> events : orphaned.values()) {
            final RequestEvent first = events.get(0);
            final Instant started = events.stream().map(RequestEvent::getIntendedSendTimeUs).min(Comparator.naturalOrder()).orElseThrow();
            final Instant measured = events.stream().filter(e -> !e.getWarmup()).map(RequestEvent::getIntendedSendTimeUs)
                    .min(Comparator.naturalOrder()).orElse(started);
            final Instant ended = events.stream().map(RequestEvent::getCompletionTimeUs).max(Comparator.naturalOrder()).orElseThrow();
            out.add(RunSummary.newBuilder().setContractId(first.getContractId()).setRunId(runId).setScenarioId(first.getScenarioId())
                    .setGeneratorId(INCOMPLETE).setTargetId(first.getTargetId()).setArrival(INCOMPLETE)
                    .setStartedUs(started).setWarmupEndUs(measured).setEndedUs(ended)
                    .setRequests(events.size()).setWarmupRequests(events.stream().filter(RequestEvent::getWarmup).count())
                    .setRequestsOk(count(events, RequestStatus.OK))
                    .setRequestsError(count(events, RequestStatus.ERROR))
                    .setRequestsTimeout(count(events, RequestStatus.TIMEOUT))
                    .setRequestsAbandoned(count(events, RequestStatus.ABANDONED))
                    .setTokenEvents(0).setLatenessP50Us(0).setLatenessP99Us(0).setLatenessMaxUs(0).setLatenessBoundUs(0)
                    .setGeneratorSaturated(false).setGeneratorCpuS(0).setWallS(Micros.of(ended) / 1e6 - Micros.of(started) / 1e6).build());
        }
        return out;
    }

    private static long count(List<RequestEvent> events, RequestStatus status) {
        return events.stream().filter(e -> e.getStatus() == status).count();
    }

    /** Scenarios whose generator left no run summary (their summaries were made from request events). */
    public List<String> incompleteScenarios() {
        return runs.stream().filter(r -> INCOMPLETE.equals(r.getGeneratorId())).map(RunSummary::getScenarioId).distinct().toList();
    }

    /** The scenarios of the run in the order they first ran. */
    public List<String> scenarioIds() {
        return runs.stream().sorted(Comparator.comparing(RunSummary::getStartedUs)).map(RunSummary::getScenarioId)
                .distinct().collect(Collectors.toList());
    }


    /** The reason of a DLQ record refused for the run {@code runId} at a source's door, else null (read past). */
    private static final class RunRefusals implements org.apache.kafka.common.serialization.Deserializer<String> {
        private final String runId;

        RunRefusals(String runId) {
            this.runId = runId;
        }

        @Override
        public String deserialize(String topic, byte[] data) {
            return null;
        }

        @Override
        public String deserialize(String topic, org.apache.kafka.common.header.Headers headers, byte[] data) {
            final String run = headers == null ? null : DeadLetters.header(headers, DeadLetters.RUN_ID);
            return runId.equals(run) ? DeadLetters.header(headers, DeadLetters.REASON) : null;
        }
    }
}
