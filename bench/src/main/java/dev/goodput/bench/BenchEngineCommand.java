package dev.goodput.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import dev.goodput.assembly.log.Event;
import dev.goodput.bench.engine.EngineBenchmark;
import dev.goodput.streams.CodecBenchmark;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code goodput bench-engine}: JMH over the request engine alone ({@link EngineBenchmark}), its CPU
 * per chunk (a token event) and per request at 10, 50 and 128 chunks a request, one chunk a token
 * event or runs of 500 ms, a CSV row per case; and ({@code --codecs}) the streams-app's hand-written
 * codecs against Avro's ({@link CodecBenchmark}), a row per codec.
 */
@Command(name = "bench-engine", mixinStandardHelpOptions = true,
        description = "JMH benchmarks of the request engine alone (no Kafka: time per chunk and per request) and of the"
                + " streams-app's codecs against Avro's.")
public final class BenchEngineCommand implements Callable<Integer> {

    /**
     * The row of each case: its log (chunks a request, run length, requests, chunks and records an
     * operation), JMH's average time of the whole log with its 99.9 % error, per chunk (a token event
     * as the streams-app counts them) and per request.
     */
    static final List<String> COLUMNS = List.of("chunks", "run_ms", "requests_per_op", "chunks_per_op", "records_per_op",
            "us_per_op", "us_per_op_error", "ns_per_chunk", "ns_per_request", "forks", "iterations", "java");

    @Option(names = "--chunks", split = ",", defaultValue = "10,50,128", description = "Chunks a request (default: ${DEFAULT-VALUE}).")
    List<Integer> chunks;

    @Option(names = "--run-ms", split = ",", defaultValue = "0,500",
            description = "A token event per chunk (0) or runs of this many ms of a request's chunks (default: ${DEFAULT-VALUE}).")
    List<Long> runMs;

    @Option(names = "--forks", defaultValue = "2", description = "JVMs per size (default: ${DEFAULT-VALUE}).")
    int forks;

    @Option(names = "--iterations", defaultValue = "5", description = "Measured iterations per fork (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--warmup-iterations", defaultValue = "5", description = "Warm-up iterations per fork (default: ${DEFAULT-VALUE}).")
    int warmups;

    @Option(names = "--record", paramLabel = "FILE", description = "CSV file each case's figures are appended to as a row"
            + " (default: docs/benchmarks/bench-engine.csv in the checkout; none: no record).")
    String record;

    @Option(names = "--codecs", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also the streams-app's hand-written codecs against Avro's on the same bytes (default: ${DEFAULT-VALUE}).")
    boolean codecs;

    @Option(names = "--codecs-record", paramLabel = "FILE", description = "CSV file the codecs' figures are appended to"
            + " (default: docs/benchmarks/bench-codecs.csv in the checkout; none: no record).")
    String codecsRecord;

    /** A row per codec: the hand-written one's and Avro's time on the same record, and how many times faster it is. */
    static final List<String> CODEC_COLUMNS = List.of("codec", "hand_written_ns", "hand_written_error_ns", "avro_ns", "avro_error_ns",
            "avro_over_hand_written", "forks", "iterations", "java");

    @Override
    public Integer call() throws Exception {
        final OptionsBuilder builder = new OptionsBuilder();
        builder.include("^" + EngineBenchmark.class.getName().replace(".", "\\.") + "\\.");
        if (codecs) {
            builder.include("^" + CodecBenchmark.class.getName().replace(".", "\\.") + "\\.");
        }
        final Options options = builder
                .param("chunks", chunks.stream().map(String::valueOf).toArray(String[]::new))
                .param("runMs", runMs.stream().map(String::valueOf).toArray(String[]::new))
                .forks(forks).warmupIterations(warmups).measurementIterations(iterations)
                .warmupTime(TimeValue.seconds(1)).measurementTime(TimeValue.seconds(2))
                .jvmArgs("-Xms1g", "-Xmx1g", "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=dev.goodput").shouldFailOnError(true).build();
        final Collection<RunResult> results = new Runner(options).run();
        final BenchData data = BenchData.of(record, "bench-engine");
        final String java = System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
        System.out.println();
        System.out.println("request engine alone, one thread (JMH average time, " + forks + " fork(s) x " + iterations
                + " iterations; a chunk is a token event as the streams-app counts them):");
        Path where = null;
        final List<RunResult> engine = new ArrayList<>();
        final Map<String, Result<?>> codec = new TreeMap<>();
        for (RunResult r : results) {
            if (r.getParams().getBenchmark().startsWith(EngineBenchmark.class.getName())) {
                engine.add(r);
            } else {
                codec.put(r.getParams().getBenchmark().substring(CodecBenchmark.class.getName().length() + 1), r.getPrimaryResult());
            }
        }
        for (RunResult r : sorted(engine)) {
            final int c = Integer.parseInt(r.getParams().getParam("chunks"));
            final long run = Long.parseLong(r.getParams().getParam("runMs"));
            final Result<?> score = r.getPrimaryResult();
            final int requests = EngineBenchmark.requests(c);
            final List<Event> log = EngineBenchmark.log(c, run);
            final long chunkCount = (long) requests * c;
            final double perChunkNs = score.getScore() * 1_000 / chunkCount;
            final double perRequestNs = score.getScore() * 1_000 / requests;
            System.out.printf(Locale.ROOT, "  %3d chunks a request, %s: %,6.0f ns a chunk, %,8.0f ns a request"
                            + " (%,.0f +- %,.0f us for %,d records)%n", c, run == 0 ? "a token event each" : "runs of " + run + " ms",
                    perChunkNs, perRequestNs, score.getScore(), score.getScoreError(), log.size());
            where = data.append(COLUMNS, List.of(c, run, requests, chunkCount, log.size(), score.getScore(), score.getScoreError(),
                    perChunkNs, perRequestNs, forks, iterations, java));
        }
        if (where != null) {
            System.out.println("recorded in " + where);
        }
        if (!codec.isEmpty()) {
            printCodecs(codec, java);
        }
        return 0;
    }

    /** Each codec's hand-written and Avro time, side by side, measured in the same JVMs. */
    private void printCodecs(Map<String, Result<?>> codec, String java) {
        final BenchData data = BenchData.of(codecsRecord, "bench-codecs");
        System.out.println("the streams-app's hand-written codecs against Avro's, on the same bytes (ns per record):");
        Path where = null;
        for (String name : List.of("requestEvent", "runOf25Chunks", "verdict")) {
            final Result<?> hand = codec.get(name + "HandWritten");
            final Result<?> avro = codec.get(name + "Avro");
            if (hand == null || avro == null) {
                continue;
            }
            final double ratio = avro.getScore() / hand.getScore();
            System.out.printf(Locale.ROOT, "  %-14s hand-written %,8.0f +- %,6.0f, Avro %,8.0f +- %,6.0f: Avro takes %.2fx%n", name,
                    hand.getScore(), hand.getScoreError(), avro.getScore(), avro.getScoreError(), ratio);
            where = data.append(CODEC_COLUMNS, List.of(name, hand.getScore(), hand.getScoreError(), avro.getScore(),
                    avro.getScoreError(), ratio, forks, iterations, java));
        }
        if (where != null) {
            System.out.println("recorded in " + where);
        }
    }

    private static List<RunResult> sorted(Collection<RunResult> results) {
        final List<RunResult> list = new ArrayList<>(results);
        list.sort(Comparator.comparingInt((RunResult r) -> Integer.parseInt(r.getParams().getParam("chunks")))
                .thenComparingLong(r -> Long.parseLong(r.getParams().getParam("runMs"))));
        return list;
    }
}
