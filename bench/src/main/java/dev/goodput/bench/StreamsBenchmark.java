package dev.goodput.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.kafka.EmbeddedKafkaMain;
import dev.goodput.definitions.Micros;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.records.TokenRuns;
import dev.goodput.topics.Topic;
import dev.goodput.topics.Topics;
import org.HdrHistogram.Histogram;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Measures the streams-app against a broker in a child JVM, with the app itself in another child
 * JVM:
 * <ol>
 *   <li>the same chunks published two ways, one token event per chunk and in runs as the generator's
 *       sink publishes them ({@code --run-ms} of chunks per run): the raw consumer's rate and a Kafka
 *       Streams app that does nothing, both on per-chunk records, and the streams-app's on runs
 *       between two runs of the do-nothing app, all in token events (chunks) per second; both apps
 *       with the same fixed heap, by default the launcher's (2 GB);</li>
 *   <li>the heap the app needs after 10 million requests (it runs with -Xmx512m; used heap after a full GC);</li>
 *   <li>the delay from a window's end + grace to its final record being readable, in a live run.</li>
 * </ol>
 * Run with {@code ./goodput bench-streams}. Prints its figures; asserts nothing.
 */
final class StreamsBenchmark {

    private final PrintStream out;
    private final Contract contract;
    private final Path contractFile;
    private final int requests;
    private final int chunks;
    private final int heapRequests;
    private final double liveSeconds;
    /** The heap of both apps in the rate phase, as {@code -Xmx} takes it. */
    private final String rateHeap;
    /** How long of a request's chunks go in one run (the generator's sink: 500 ms). */
    private final long runUs;
    /** The broker's JVM, whose CPU is read beside each app's. */
    private long brokerPid = -1;
    /** Cycles of the rate phase in one sitting (set by the command). */
    int repeat = 1;
    /** Where the runs' figures are appended as rows (set by the command; none by default). */
    BenchData data = BenchData.of("none", "bench-streams");

    StreamsBenchmark(PrintStream out, Contract contract, Path contractFile, int requests, int chunks, int heapRequests,
                     double liveSeconds, String rateHeap, long runMs) {
        this.out = out;
        this.contract = contract;
        this.contractFile = contractFile;
        this.requests = requests;
        this.chunks = chunks;
        this.heapRequests = heapRequests;
        this.liveSeconds = liveSeconds;
        this.rateHeap = rateHeap;
        this.runUs = runMs * 1_000;
    }

    /** A warm rate in token events per second, and per second on a core of the app's stream thread (NaN: not measured). */
    private record Rate(double perSecond, double perCore) {
    }

    void run() throws Exception {
        try (ChildJvm broker = ChildJvm.start(List.of("-Xmx1g"), EmbeddedKafkaMain.class.getName(), "bootstrap=");
             InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final String bootstrap = broker.value();
            brokerPid = broker.pid();
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            out.printf(Locale.ROOT, "broker %s (child JVM), %d cores%n", bootstrap, Runtime.getRuntime().availableProcessors());
            rate(bootstrap, registry.url(), client);
            if (heapRequests > 0) {
                heap(bootstrap, registry.url(), client);
            }
            if (liveSeconds > 0) {
                delay(bootstrap, registry.url(), client);
            }
        }
    }

    private void rate(String bootstrap, String registryUrl, SchemaRegistryClient client) throws Exception {
        final String tokens = "bench.tokens";
        final String runs = "bench.runs";
        final String reqs = "bench.requests";
        createTopics(bootstrap, List.of(tokens, runs), reqs, 2);
        // every event in the past: the raw topics are stamped at append, and events dated after that are refused
        final long t0 = BenchIo.windowAligned(Instant.now().minusSeconds(Math.max(3600, (long) (requests / 200.0) + 600)));
        final long[] produced = produce(bootstrap, client, tokens, runs, reqs, t0, requests, chunks, 200.0);
        final long tokenEvents = (long) requests * chunks;
        out.printf(Locale.ROOT, "produced %d requests with %d chunks each: %d token events, one record each on %s and in %,d"
                + " runs (%.1f chunks each, %d ms of chunks per run) on %s%n", requests, chunks, tokenEvents, tokens,
                produced[1], (double) tokenEvents / produced[1], runUs / 1_000, runs);
        out.printf(Locale.ROOT, "rates in token events (chunks) per second: whole run (from the first records or commit) and"
                + " warm (the part after the first %.0f%%, once the JIT has compiled the hot paths; a second pass for the raw"
                + " consumer); both apps with -Xms%s -Xmx%s; all three under %s%n", 100 * BenchIo.WARMUP_FRACTION, rateHeap,
                rateHeap, ChildJvm.collectors());
        final List<double[]> ratios = new ArrayList<>();
        for (int cycle = 1; cycle <= repeat; cycle++) {
            if (repeat > 1) {
                out.printf(Locale.ROOT, "cycle %d of %d%n", cycle, repeat);
            }
            ratios.add(cycle(bootstrap, registryUrl, tokens, runs, reqs, produced, tokenEvents, cycle == 1 ? "" : "-" + cycle));
        }
        if (repeat > 1) {
            out.printf(Locale.ROOT, "over %d cycles in one sitting (medians, then the range): streams-app / do-nothing app %s;"
                    + " streams-app / raw consumer %s%n", repeat, BenchIo.median(ratios, 0, 1, "x"), BenchIo.median(ratios, 2, 3, "%"));
        }
    }

    /**
     * One cycle of the rate phase, the readers alternated: the raw consumer, the do-nothing app, the raw
     * consumer, the streams-app, the raw consumer, the do-nothing app; a CSV row. Returns the
     * streams-app's ratios to the do-nothing app before and after it, and to the raw consumer before
     * and after it (in %).
     */
    private double[] cycle(String bootstrap, String registryUrl, String tokens, String runs, String reqs, long[] produced,
                           long tokenEvents, String suffix) throws Exception {
        // raw consumer, per-chunk records, two passes in one JVM: the first warms the JIT, the second is the warm rate
        final BenchIo.Pass cold = BenchIo.consumeAll(bootstrap, tokens, tokenEvents);
        final BenchIo.Pass warm = BenchIo.consumeAll(bootstrap, tokens, tokenEvents);
        final double rawRate = warm.rate();
        out.printf(Locale.ROOT, "raw consumer, per-chunk records:  %,d token events; whole run (first pass) %,.0f/s; warm"
                + " (second pass) %,.0f/s%s%n", (long) warm.records(), cold.rate(), rawRate, warm.coreShare());
        // the do-nothing app runs before and after the streams-app, so a machine that changes speed during
        // the run shows as two different baselines
        final Rate before = baseline(bootstrap, tokens, reqs, (double) tokenEvents / (tokenEvents + requests), rawRate, "before" + suffix);
        // and the raw consumer right before and right after the streams-app, against which its 50 % bar is
        // read: this machine's speed moves by up to twice within a run, and each of these passes is seconds
        // from the app, where the do-nothing app's forty would stand between
        final BenchIo.Pass before3 = BenchIo.consumeAll(bootstrap, tokens, tokenEvents);
        final double rawBefore = before3.rate();
        out.printf(Locale.ROOT, "raw consumer (right before the streams-app), per-chunk records: warm (third pass) %,.0f/s%s%n",
                rawBefore, before3.coreShare());
        final Rate app = appRate(bootstrap, registryUrl, runs, reqs, produced[1] + requests, tokenEvents, rawBefore,
                "streams-app, runs:  ", "rate" + suffix);
        final BenchIo.Pass after4 = BenchIo.consumeAll(bootstrap, tokens, tokenEvents);
        final double rawAfter = after4.rate();
        out.printf(Locale.ROOT, "raw consumer (right after the streams-app), per-chunk records: warm (fourth pass) %,.0f/s%s%n",
                rawAfter, after4.coreShare());
        final Rate after = baseline(bootstrap, tokens, reqs, (double) tokenEvents / (tokenEvents + requests), rawAfter, "after" + suffix);
        out.printf(Locale.ROOT, "streams-app on runs / do-nothing app on per-chunk records (warm, token events/s): %.2f against"
                + " the one before, %.2f against the one after (bar: 2); streams-app / raw consumer: %.1f%% against the pass"
                + " right before, %.1f%% against the pass right after (bar: 50%%)%n",
                app.perSecond() / before.perSecond(), app.perSecond() / after.perSecond(), 100 * app.perSecond() / rawBefore,
                100 * app.perSecond() / rawAfter);
        // the same per second on a core (each reader's thread's own), where the bars are per second of the
        // clock: what the software does with a core, apart from how much of one the machine gave it
        final double rawBeforeCore = before3.ratePerCore();
        final double rawAfterCore = after4.ratePerCore();
        if (!Double.isNaN(app.perCore() + before.perCore() + after.perCore() + rawBeforeCore + rawAfterCore)) {
            out.printf(Locale.ROOT, "per second on a core (not the bars): streams-app %,.0f token events, do-nothing app %,.0f /"
                    + " %,.0f, raw consumer %,.0f / %,.0f: %.2f / %.2f x the do-nothing app, %.1f%% / %.1f%% of the raw consumer%n",
                    app.perCore(), before.perCore(), after.perCore(), rawBeforeCore, rawAfterCore, app.perCore() / before.perCore(),
                    app.perCore() / after.perCore(), 100 * app.perCore() / rawBeforeCore, 100 * app.perCore() / rawAfterCore);
        }
        final Path recorded = data.append(BenchData.STREAMS, List.of(requests, chunks, runUs / 1_000, rawBefore, rawAfter,
                before.perSecond(), after.perSecond(), app.perSecond(), app.perCore()));
        out.println(recorded == null ? "not recorded (--record none)" : "recorded in " + recorded);
        return new double[] {app.perSecond() / before.perSecond(), app.perSecond() / after.perSecond(),
                100 * app.perSecond() / rawBefore, 100 * app.perSecond() / rawAfter};
    }

    /**
     * The ceiling of one Kafka Streams record per chunk: Kafka Streams with the same settings and a
     * processor that does nothing, on the per-chunk records; its warm rate in token events.
     */
    private Rate baseline(String bootstrap, String tokens, String reqs, double tokenShare, double rawRate, String when)
            throws Exception {
        final String group = "bench-noop-" + when;
        final Path state = Files.createTempDirectory("goodput-noop-state");
        final ChildJvm noop = ChildJvm.start(ChildJvm.fixedHeap(rateHeap), NoopStreamsMain.class.getName(), "noop-streams ",
                bootstrap, state.toString(), group, tokens, reqs).removingOnClose(state);
        try {
            final BenchIo.Progress run = BenchIo.awaitCaughtUp(bootstrap, group, List.of(tokens, reqs), Duration.ofMinutes(20),
                    noop.pid(), brokerPid);
            out.printf(Locale.ROOT, "do-nothing app (%s), per-chunk records: Kafka Streams, same settings, a processor that does"
                    + " nothing: whole run %,.0f token events/s; warm %,.0f/s, %.1f%% of the raw consumer's warm rate%n", when,
                    run.wholeRate() * tokenShare, run.warmRate() * tokenShare, 100 * run.warmRate() * tokenShare / rawRate);
            out.printf(Locale.ROOT, "                  CPU over the warm part (%s): %s%n", run.warmSpan(), run.warmThreads());
            return new Rate(run.warmRate() * tokenShare, run.warmRatePerCore() * tokenShare);
        } finally {
            noop.close();
        }
    }

    /** Runs the streams-app over the topics; its warm rate in token events. */
    private Rate appRate(String bootstrap, String registryUrl, String tokens, String reqs, long produced, long tokenEvents,
                           double rawRate, String label, String tag, String... extraArgs) throws Exception {
        final String group = "bench-" + tag;
        final ChildJvm app = startApp(ChildJvm.fixedHeap(rateHeap), bootstrap, registryUrl, group, tokens, reqs, tag, extraArgs);
        try {
            final BenchIo.Progress run = BenchIo.awaitCaughtUp(bootstrap, group, List.of(tokens, reqs), Duration.ofMinutes(20),
                    app.pid(), brokerPid);
            // its rate counts records of both topics (runs and request events): token events per record
            final double perRecord = (double) tokenEvents / produced;
            final long requestEvents = requests;
            out.printf(Locale.ROOT, "%s %,d token events in %,d records (+%,d request events)%s; whole run %,.0f token events/s"
                    + " (%,.0f records in %.2f s between offset commits); warm %,.0f token events/s (%,.0f records in %.2f s),"
                    + " %.1f%% of the raw consumer's warm rate%n", label, tokenEvents, produced - requestEvents, requestEvents,
                    extraArgs.length == 0 ? "" : " " + String.join(" ", extraArgs),
                    run.wholeRate() * perRecord, run.wholeRecords(), run.wholeSeconds(), run.warmRate() * perRecord,
                    run.warmRecords(), run.warmSeconds(), 100 * run.warmRate() * perRecord / rawRate);
            // a rate means nothing if the results are not all there: one verdict per request, committed
            final long verdicts = BenchIo.countCommitted(bootstrap, tag + ".verdicts", requestEvents);
            out.printf(Locale.ROOT, "%s %,d verdicts committed for %,d requests%n", " ".repeat(label.length()),
                    verdicts, requestEvents);
            out.printf(Locale.ROOT, "%s CPU over the warm part (%s): %s%n", " ".repeat(label.length()), run.warmSpan(),
                    run.warmThreads());
            if (verdicts != requestEvents) {
                throw new IllegalStateException("the " + label.trim() + " run committed " + verdicts + " verdicts for "
                        + requestEvents + " requests: its rate is not a result");
            }
            return new Rate(run.warmRate() * perRecord, run.warmRatePerCore() * perRecord);
        } finally {
            app.close();
        }
    }

    private void heap(String bootstrap, String registryUrl, SchemaRegistryClient client) throws Exception {
        final String tokens = "heap.tokens";
        final String reqs = "heap.requests";
        createTopics(bootstrap, List.of(tokens), reqs, 2);
        final long t0 = BenchIo.windowAligned(Instant.now().minusSeconds(7200));
        final long start = System.nanoTime();
        produce(bootstrap, client, null, tokens, reqs, t0, heapRequests, 2, 2000.0);
        out.printf(Locale.ROOT, "produced %,d requests (2 chunks each) in %.1f s%n", heapRequests, (System.nanoTime() - start) / 1e9);
        final ChildJvm app = startApp(ChildJvm.fixedHeap("512m"), bootstrap, registryUrl, "bench-heap", tokens, reqs, "heap");
        try {
            final long s0 = System.nanoTime();
            BenchIo.awaitCaughtUp(bootstrap, "bench-heap", List.of(tokens, reqs), Duration.ofMinutes(40), app.pid(), brokerPid);
            final double s = (System.nanoTime() - s0) / 1e9;
            // the class histogram runs a full GC first: its total is the live heap
            final String[] histogram = BenchIo.jcmd(app.pid(), "GC.class_histogram").split("\n");
            out.printf(Locale.ROOT, "heap: %,d requests processed in %.1f s with -Xmx512m (%,.0f records/s), no OutOfMemoryError;"
                    + " live heap after a full GC: %s%n", heapRequests, s, 2.0 * heapRequests / s, BenchIo.liveHeap(histogram));
        } finally {
            app.close();
        }
    }

    private void delay(String bootstrap, String registryUrl, SchemaRegistryClient client) throws Exception {
        final String tokens = "live.tokens";
        final String reqs = "live.requests";
        final String stats = "live.window-stats";
        createTopics(bootstrap, List.of(tokens), reqs, 2);
        final ChildJvm app = startApp(ChildJvm.fixedHeap("512m"), bootstrap, registryUrl, "bench-live", tokens, reqs, "live");
        final List<Long> delays = new ArrayList<>();
        try (KafkaConsumer<String, WindowStats> c = BenchIo.reader(bootstrap, client, stats)) {
            Thread.sleep(3000);
            final Thread producer = new Thread(() -> produceLive(bootstrap, client, tokens, reqs), "live-producer");
            producer.start();
            final long end = System.nanoTime() + (long) ((liveSeconds + 20) * 1e9);
            while (System.nanoTime() < end) {
                for (ConsumerRecord<String, WindowStats> r : c.poll(Duration.ofMillis(100))) {
                    if (r.value().getIsFinal()) {
                        final long due = r.value().getWindowEndUs().toEpochMilli() * 1000 + 5_000_000L;
                        delays.add(BenchIo.nowUs() - due);
                    }
                }
            }
            producer.join();
        } finally {
            app.close();
        }
        final Histogram h = new Histogram(3_600_000_000L, 3);
        delays.forEach(d -> h.recordValue(Math.max(0, d)));
        out.printf(Locale.ROOT, "final-record delay after window end + grace (live, %d windows): p50 %.0f ms, max %.0f ms%n",
                h.getTotalCount(), h.getValueAtPercentile(50) / 1e3, h.getMaxValue() / 1e3);
    }

    private ChildJvm startApp(List<String> heap, String bootstrap, String registryUrl, String appId, String tokens,
                              String reqs, String tag, String... extraArgs) throws IOException {
        final Path state = Files.createTempDirectory("goodput-bench-state");
        final List<String> jvm = new ArrayList<>(heap);
        final String extra = System.getenv("GOODPUT_BENCH_APP_OPTS");
        if (extra != null && !extra.isBlank()) {
            jvm.addAll(List.of(extra.trim().split("\\s+")));
        }
        final List<String> args = new ArrayList<>(List.of(
                "streams", "--bootstrap-server", bootstrap, "--schema-registry", registryUrl, "--application-id", appId,
                "--state-dir", state.toString(), "--contract", contractFile.toString(), "--topic", "tokens=" + tokens,
                "--topic", "requests=" + reqs, "--topic", "verdicts=" + tag + ".verdicts",
                "--topic", "window-stats=" + tag + ".window-stats", "--topic", "dlq=" + tag + ".dlq"));
        args.addAll(List.of(extraArgs));
        return ChildJvm.start(jvm, "dev.goodput.runner.Main", "streams-app ", args.toArray(String[]::new)).removingOnClose(state);
    }

    private void createTopics(String bootstrap, List<String> tokenTopics, String reqs, int partitions) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // a recorded log written in one go: each record keeps the time it would have been appended at
            // (its event's own time), or every event, hours old by the broker's clock, would be late
            final List<Topic<?>> topics = new ArrayList<>();
            tokenTopics.forEach(t -> topics.add(Topics.TOKENS.named(t).withPartitions(partitions)
                    .withConfig("message.timestamp.type", "CreateTime")));
            topics.add(Topics.REQUESTS.named(reqs).withPartitions(partitions).withConfig("message.timestamp.type", "CreateTime"));
            Topics.createMissing(admin, topics, (short) 1);
        }
    }

    /**
     * Synthetic requests at {@code rps} in event time, their chunks one per record on {@code tokens}
     * and in runs on {@code runs} (either may be null); returns the records written: per-chunk, runs, requests.
     */
    private long[] produce(String bootstrap, SchemaRegistryClient client, String tokens, String runs, String reqs, long t0,
                           int n, int perRequest, double rps) {
        final long[] count = new long[3];
        try (KafkaProducer<String, SpecificRecord> p = BenchIo.producer(bootstrap, client)) {
            for (int i = 0; i < n; i++) {
                send(p, tokens, runs, reqs, "r" + i, "bench-scenario-" + (i % 4), t0 + (long) (i * 1e6 / rps), perRequest, count);
            }
            p.flush();
        }
        return count;
    }

    private void produceLive(String bootstrap, SchemaRegistryClient client, String tokens, String reqs) {
        try (KafkaProducer<String, SpecificRecord> p = BenchIo.producer(bootstrap, client)) {
            final long end = System.nanoTime() + (long) (liveSeconds * 1e9);
            int i = 0;
            while (System.nanoTime() < end) {
                // requests that completed just now, 100 per second
                send(p, null, tokens, reqs, "live" + i, "live-scenario", BenchIo.nowUs() - 300_000, 10, new long[3]);
                i++;
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One request: its chunks 10 ms apart, per chunk and in runs of {@link #runUs}, then its request event. */
    private void send(KafkaProducer<String, SpecificRecord> p, String tokens, String runs, String reqs, String id,
                      String scenario, long intended, int perRequest, long[] count) {
        final long first = intended + 40_000;
        TokenEvent run = null;
        for (int c = 0; c < perRequest; c++) {
            final long at = first + c * 10_000L;
            final TokenEvent chunk = TokenEvent.newBuilder().setContractId(contract.id())
                    .setRunId("bench").setScenarioId(scenario).setRequestId(id).setChunkIndex(c).setKind(ChunkKind.ANSWER)
                    .setTokens(1).setArrivalTimeUs(Micros.toInstant(at)).setWarmup(false).build();
            if (tokens != null) {
                p.send(new ProducerRecord<>(tokens, null, at / 1000, id, chunk));
                count[0]++;
            }
            if (runs == null) {
                continue;
            }
            if (run != null && at - Micros.of(run.getArrivalTimeUs()) >= runUs) {
                p.send(new ProducerRecord<>(runs, null, TokenRuns.lastArrivalUs(run) / 1000, id, run));
                count[1]++;
                run = null;
            }
            run = run == null ? TokenEvent.newBuilder(chunk).build() : TokenRuns.append(run, chunk);
        }
        if (run != null) {
            p.send(new ProducerRecord<>(runs, null, TokenRuns.lastArrivalUs(run) / 1000, id, run));
            count[1]++;
        }
        final long last = first + (perRequest - 1) * 10_000L;
        // stamped a millisecond after its last run, as the generator's sink publishes it after the run's
        // final flush (the raw topics are stamped at append): in the same millisecond, Kafka Streams took
        // the request event first, which is not the order the app meets
        p.send(new ProducerRecord<>(reqs, null, (last + 100) / 1000 + 1, id, RequestEvent.newBuilder()
                .setContractId(contract.id()).setRunId("bench").setScenarioId(scenario).setTargetId("sim").setGpuType("H100")
                .setGpuCount(1).setRequestId(id).setAttempt(1).setIntendedSendTimeUs(Micros.toInstant(intended))
                .setActualSendTimeUs(Micros.toInstant(intended + 50)).setFirstChunkTimeUs(Micros.toInstant(first)).setFirstAnswerTimeUs(Micros.toInstant(first))
                .setLastChunkTimeUs(Micros.toInstant(last)).setCompletionTimeUs(Micros.toInstant(last + 100)).setPromptTokens(64)
                .setOutputTokens(perRequest).setOutputTokensSource(TokenCountSource.SERVER_USAGE).setContentChunks(perRequest)
                .setStatus(RequestStatus.OK).setHttpStatus(200).setQualityScore(1.0).setQualityPass(true).setWarmup(false)
                .build()));
        count[2]++;
    }

}
