package dev.goodput.runner;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.RunSummary;
import dev.goodput.config.ClientConfig;
import dev.goodput.config.Connection;
import dev.goodput.config.Durations;
import dev.goodput.config.Settings;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.definitions.Micros;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.report.ConventionReplay;
import dev.goodput.report.TopicSnapshot;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.sink.PricesFile;
import dev.goodput.sink.SinkApp;
import dev.goodput.sink.SinkConfig;
import dev.goodput.streams.SettingsOptions;
import dev.goodput.streams.StreamsApp;
import dev.goodput.streams.StreamsSettings;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code goodput replay}: recomputes a run's results from the retained raw topics with a fresh
 * application id, into topics named by the replay id (never over the live results): verdicts,
 * window stats, DLQ and, with prices, cost. With unchanged parameters the final records equal the
 * live run's byte for byte; with changed SLOs, quality floor, windows or prices it is a what-if,
 * and every parameter that differs is printed first.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Recompute a run from its retained topics, as it was or under other SLOs, windows or prices.")
public final class ReplayCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--replay-id", required = true, description = "Names the output topics: llm.window-stats.<id>, llm.verdicts.<id>, ...")
    String replayId;

    @CommandLine.Mixin
    Connection connection;

    /** --window, --grace, --goodput, --topic, --settings: each not given is the live run's. */
    @CommandLine.Mixin
    SettingsOptions settings;


    @Option(names = "--streams.config", description = "Kafka Streams / client properties file.")
    Path streamsConfig;

    @Option(names = "--contract", description = "Contract file(s) of the run (default config/contract.yaml).")
    List<Path> contracts = new ArrayList<>();

    @Option(names = "--run-id", description = "Only this run's events.")
    String runId;

    @Option(names = "--from", description = "Only requests completing at or after this instant (ISO-8601).")
    Instant from;

    @Option(names = "--to", description = "Only requests completing before this instant (ISO-8601).")
    Instant to;

    @Option(names = "--quality-floor", description = "What-if quality floor (0..1), applied to the recorded quality scores.")
    Double qualityFloor;

    @Option(names = "--prices", description = "Price the replay with this price file (published to gpu.prices.<id>); without it the"
            + " replay is priced with the price versions on gpu.prices, as the live run was.")
    Path pricesFile;

    @Option(names = "--data-dir", description = "Replay a local run: start the embedded broker and registry on this kept data folder (for example .goodput/data).")
    Path dataDir;

    @Option(names = "--idle-seconds", defaultValue = "10", converter = Durations.Seconds.class, description = "Stop once caught up and no output arrived for this long.")
    double idleSeconds;

    @Option(names = "--conventions", description = "Recompute the run under Goodput's, vLLM bench serve's and NVIDIA AIPerf's "
            + "conventions side by side, with the reasons they differ, into <out>/conventions-<replay id>.json (no streams-app run).")
    boolean conventions;

    @Option(names = "--out", defaultValue = ".goodput/replays", description = "Folder for --conventions results (default: ${DEFAULT-VALUE}).")
    Path out;

    @Override
    public Integer call() throws Exception {
        final PrintStream out = System.out;
        final Map<String, Contract> byId = ContractLoader.loadAll(contracts);
        if (!(idleSeconds > 0)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--idle-seconds " + idleSeconds + ": must be more than 0");
        }
        final Map<String, Settings.Value> merged;
        StreamsSettings config;
        try {
            merged = settings.merged(System.getenv());
            // checked against the defaults at once, before any connection: a bad value is refused at start
            config = StreamsSettings.apply(StreamsSettings.defaults(byId), merged)
                    .withSelection(new StreamsSettings.Selection(runId, from == null ? Long.MIN_VALUE : Micros.of(from),
                            to == null ? Long.MAX_VALUE : Micros.of(to), qualityFloor));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (conventions) {
            if (pricesFile != null || merged.containsKey("window") || merged.containsKey("grace")) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--conventions compares per-request figures: --prices, --window and --grace do not apply to it");
            }
            for (String line : differences(config, byId, config)) {
                System.out.println("what-if: " + line);
            }
            return conventions(System.out, config, byId);
        }
        try (ReadTarget at = ReadTarget.open(dataDir, connection, streamsConfig)) {
            final StreamsSettings defaults = StreamsSettings.defaults(byId);
            final StreamsSettings live = asLive(out, config.withWindow(defaults.window(), defaults.grace()),
                    LiveWindowing.read(at.client(), at.registry(), config.topics().windowStats()));
            config = StreamsSettings.apply(live, merged);
            config = config.withTopics(config.topics().suffixedResults(replayId));
            for (String line : differences(config, byId, live)) {
                out.println("what-if: " + line);
            }
            return replay(out, config, byId, at);
        }
    }

    /** The settings with the live run's windowing, as its window records give it, said on the way. */
    static StreamsSettings asLive(PrintStream out, StreamsSettings defaults, LiveWindowing live) {
        if (live == null) {
            out.printf(Locale.ROOT, "live windowing: no window records on %s; taking the defaults (%s s windows, grace %s s)%n",
                    defaults.topics().windowStats(), Durations.seconds(defaults.window()), Durations.seconds(defaults.grace()));
            return defaults;
        }
        if (live.grace() == null) {
            out.printf(Locale.ROOT, "live windowing: %s s windows; the records predate grace being recorded, taking the default %s s%n",
                    Durations.seconds(live.window()), Durations.seconds(defaults.grace()));
            return defaults.withWindow(live.window(), defaults.grace());
        }
        out.printf(Locale.ROOT, "live windowing: %s s windows, grace %s s (from %s)%n", Durations.seconds(live.window()),
                Durations.seconds(live.grace()), defaults.topics().windowStats());
        return defaults.withWindow(live.window(), live.grace());
    }

    private int replay(PrintStream out, StreamsSettings configured, Map<String, Contract> byId, ReadTarget at)
            throws Exception {
        StreamsSettings config = configured;
        final Properties client = at.client();
        final SchemaRegistryClient registry = at.registry();
        final int partitions = StreamsApp.prepareTopics(client, config);
        config = config.withUpstreamPartitions(partitions);
        final String appId = "goodput-replay-" + replayId;
        final Path state = Files.createTempDirectory("goodput-replay-state");
        final long t0 = System.nanoTime();
        final Map<String, Double> peaks = SinkConfig.peaks(byId.values());
        final SinkConfig d = SinkConfig.defaults(peaks);
        // a what-if of prices takes the file given; otherwise the replay is priced as the live run was, by the live versions
        final List<GpuPrice> prices = pricesFile != null ? PricesFile.load(pricesFile)
                : TopicSnapshot.read(client, d.pricesTopic(), new AvroDeserializer<>(registry, GpuPrice.class));
        out.println(pricesFile != null ? "prices: " + prices.size() + " version(s) from " + pricesFile
                : prices.isEmpty() ? "prices: none on " + d.pricesTopic() + ", so no cost (give --prices <file>)"
                : "prices: the live run's " + prices.size() + " version(s) from " + d.pricesTopic() + " (--prices <file> for a what-if)");
        final SinkApp.Options sink = prices.isEmpty() ? null : SinkApp.Options.of(new SinkConfig(d.pricesTopic() + "." + replayId,
                config.topics().windowStats(), d.costTopic() + "." + replayId, config.topics().dlq(), d.rollingSpans(), peaks),
                prices, appId + "-sink", state.resolve("sink"));
        try (LocalPipeline pipeline = LocalPipeline.start(client, registry, config, appId, state, sink)) {
            final long[] progress = follow(client, appId, List.of(config.topics().tokens(), config.topics().requests()), out, t0);
            final double seconds = progress[1] / 1e9;
            final double runSeconds = runDuration(client, registry, runId);
            out.printf(Locale.ROOT, "replay %s done: %,d input records in %.1f s (%,.0f records/s)%s; results in %s, %s, %s%s%n",
                    replayId, progress[0], seconds, progress[0] / seconds,
                    runSeconds > 0 ? String.format(Locale.ROOT, "; the run took %.1f s: %.1fx its real duration", runSeconds,
                            runSeconds / seconds) : "",
                    config.topics().windowStats(), config.topics().verdicts(), config.topics().dlq(),
                    pipeline.sink() == null ? "" : ", llm.cost." + replayId);
        }
        return 0;
    }

    /** The conventions replay: a batch recomputation of the raw events, printed and written to a file named by the replay id. */
    private int conventions(PrintStream out, StreamsSettings config, Map<String, Contract> byId) throws IOException {
        if (byId.size() != 1 && config.objectivesOverride().isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--conventions with several contracts needs the objectives given with --goodput");
        }
        final Contract.Objectives objectives = config.objectives(byId.values().iterator().next());
        try (ReadTarget at = ReadTarget.open(dataDir, connection, streamsConfig)) {
            final Properties client = at.client();
            final SchemaRegistryClient registry = at.registry();
            final long t0 = System.nanoTime();
            final List<ConventionReplay.Scenario> result = ConventionReplay.load(client, registry,
                    runId, config.selection().fromUs(), config.selection().toUs(), objectives, config.selection().qualityFloor());
            if (result.isEmpty()) {
                out.println("replay " + replayId + ": no request events" + (runId == null ? "" : " of run " + runId) + " to recompute");
                return Main.EXIT_FAILED;
            }
            out.print(ConventionReplay.text(result));
            Files.createDirectories(this.out);
            final Path file = this.out.resolve("conventions-" + replayId + ".json");
            Files.write(file, new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValueAsBytes(ConventionReplay.json(replayId, runId, objectives, result)));
            out.printf(Locale.ROOT, "replay %s done in %.1f s: %s%n", replayId, (System.nanoTime() - t0) / 1e9, file.toAbsolutePath());
            return 0;
        }
    }

    /** Every parameter that differs from the contract and the live run's settings, one line each. */
    static List<String> differences(StreamsSettings c, Map<String, Contract> contracts, StreamsSettings live) {
        final List<String> out = new ArrayList<>();
        for (Contract k : contracts.values()) {
            final Contract.Objectives o = c.objectives(k);
            final List<String> kept = new ArrayList<>();
            final int before = out.size();
            diff(out, kept, "TTFT objective", k.objectives().ttftUs().orElse(null), o.ttftUs().orElse(null));
            diff(out, kept, "TPOT objective", k.objectives().tpotUs().orElse(null), o.tpotUs().orElse(null));
            diff(out, kept, "E2E objective", k.objectives().e2eUs().orElse(null), o.e2eUs().orElse(null));
            if (out.size() > before) {
                // a what-if says what it left as the contract has it, not only what it changed
                out.addAll(kept);
            }
            if (c.selection().qualityFloor() != null && c.selection().qualityFloor() != k.quality().floor()) {
                out.add("quality floor " + k.quality().floor() + " -> " + c.selection().qualityFloor());
            }
        }
        if (!c.window().equals(live.window())) {
            out.add("window " + Durations.seconds(live.window()) + " s -> " + Durations.seconds(c.window()) + " s");
        }
        if (!c.grace().equals(live.grace())) {
            out.add("grace " + Durations.seconds(live.grace()) + " s -> " + Durations.seconds(c.grace()) + " s");
        }
        return out;
    }

    private static void diff(List<String> out, List<String> kept, String what, Long live, Long now) {
        if (!Objects.equals(live, now)) {
            out.add(what + " " + (live == null ? "none" : live / 1000.0 + " ms") + " -> " + (now == null ? "none" : now / 1000.0 + " ms")
                    + (now == null ? " (dropped: --goodput names every objective that judges)" : ""));
        } else if (live != null) {
            kept.add(what + " " + live / 1000.0 + " ms kept");
        }
    }

    /** Real duration of the run (or of every run): first intended send to last request event, from llm.runs. */
    private static double runDuration(Properties client, SchemaRegistryClient registry, String runId) {
        final Properties p = ClientConfig.forConsumer(client);
        p.put("group.id", "goodput-replay-runs-" + System.nanoTime());
        p.put("auto.offset.reset", "earliest");
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        try (KafkaConsumer<String, RunSummary> c =
                     new KafkaConsumer<>(p, new StringDeserializer(),
                             new AvroDeserializer<>(registry, RunSummary.class))) {
            c.subscribe(List.of(Topics.RUNS.name()));
            int idle = 0;
            while (idle < 4) {
                final var records = c.poll(Duration.ofMillis(250));
                idle = records.isEmpty() ? idle + 1 : 0;
                for (var r : records) {
                    if (runId == null || runId.equals(r.value().getRunId())) {
                        first = Math.min(first, r.value().getStartedUs().toEpochMilli());
                        last = Math.max(last, r.value().getEndedUs().toEpochMilli());
                    }
                }
            }
        }
        return last > first ? (last - first) / 1000.0 : 0;
    }

    /**
     * Prints progress until the app has caught up with its inputs and its output has been quiet for
     * a while; returns the records processed and the nanoseconds it took to catch up.
     */
    private long[] follow(Properties client, String group, List<String> topics, PrintStream out, long t0) throws Exception {
        try (Admin admin = Admin.create(ClientConfig.forAdmin(client))) {
            final Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
            for (var d : admin.describeTopics(topics).allTopicNames().get().values()) {
                d.partitions().forEach(p -> specs.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            final var ends = admin.listOffsets(specs).all().get();
            final long total = ends.values().stream().mapToLong(e -> e.offset()).sum();
            long caughtUpAt = 0;
            long lastPrint = 0;
            while (true) {
                final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                long done = 0;
                for (var e : ends.entrySet()) {
                    final OffsetAndMetadata c = committed.get(e.getKey());
                    done += c == null ? 0 : Math.min(c.offset(), e.getValue().offset());
                }
                final long now = System.nanoTime();
                if (now - lastPrint > 5_000_000_000L) {
                    lastPrint = now;
                    final double s = (now - t0) / 1e9;
                    final double rate = done / Math.max(s, 1e-9);
                    out.printf(Locale.ROOT, "%8.1f s: %,d of %,d records (%.1f%%), %,.0f records/s, about %.0f s left%n", s, done,
                            total, total == 0 ? 100.0 : 100.0 * done / total, rate, rate > 0 ? (total - done) / rate : 0);
                }
                // transaction markers take offsets too: within one per partition of the end is the end
                if (done >= total - ends.size()) {
                    if (caughtUpAt == 0) {
                        caughtUpAt = now;
                    } else if (now - caughtUpAt > idleSeconds * 1e9) {
                        return new long[] {done, caughtUpAt - t0};
                    }
                } else {
                    caughtUpAt = 0;
                }
                Thread.sleep(200);
            }
        }
    }

}
