package dev.goodput.streams;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.records.TokenRuns;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import org.apache.kafka.streams.processor.api.Record;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The streams-app's hand-written codecs against Avro's own on the same bytes, one thread: a request
 * event read ({@link RequestReader} / Avro's resolving deserializer), a token event of a run of 25
 * chunks (500 ms of a request at 20 ms a chunk) read ({@link RunReader} into a {@link TokenInput} /
 * Avro), a verdict written ({@link VerdictWriter} / Avro's serializer). The schemas come from an
 * in-process registry, fetched once; nothing else is in the loop. In this package to reach the
 * codecs, which are the streams-app's own.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {

    /** Chunks in the benchmark's run. */
    public static final int RUN_CHUNKS = 25;
    private static final String TOKENS = "llm.tokens";
    private static final String REQUESTS = "llm.requests";
    private static final String VERDICTS = "llm.verdicts";
    private static final Instant T0 = Instant.parse("2026-12-07T12:00:00.123456Z");
    private static final String CONTRACT = "c".repeat(64);

    private InProcessSchemaRegistry server;
    private byte[] request;
    private Record<String, byte[]> run;
    private RequestVerdict verdict;
    private RequestReader requestReader;
    private AvroDeserializer<RequestEvent> requestAvro;
    private TokenInput tokenInput;
    private AvroDeserializer<TokenEvent> runAvro;
    private VerdictWriter verdictWriter;
    private AvroSerializer<RequestVerdict> verdictAvro;

    @Setup(Level.Trial)
    public void setUp() {
        server = InProcessSchemaRegistry.inMemory(0);
        final SchemaRegistryClient registry = new SchemaRegistryClient(server.url());
        request = new AvroSerializer<RequestEvent>(registry, false).serialize(REQUESTS, RequestEvent.newBuilder()
                .setContractId(CONTRACT).setRunId("demo-20261207-120000").setScenarioId("p64-o64-r10-cold").setTargetId("sim")
                .setGpuType("H100").setGpuCount(1).setRequestId("demo-20261207-120000/p64-o64-r10-cold/000123").setAttempt(1)
                .setIntendedSendTimeUs(T0).setActualSendTimeUs(T0.plusNanos(15_000)).setFirstChunkTimeUs(T0.plusMillis(120))
                .setFirstAnswerTimeUs(T0.plusMillis(120)).setLastChunkTimeUs(T0.plusMillis(900)).setCompletionTimeUs(T0.plusMillis(901))
                .setPromptTokens(64).setOutputTokens(64).setOutputTokensSource(TokenCountSource.SERVER_USAGE).setContentChunks(64)
                .setStatus(RequestStatus.OK).setHttpStatus(200).setQualityScore(1.0).setQualityPass(true).setWarmup(false).build());
        TokenEvent chunks = null;
        for (int i = 0; i < RUN_CHUNKS; i++) {
            final TokenEvent c = TokenRuns.chunk(CONTRACT, "demo-20261207-120000", "p64-o64-r10-cold",
                    "demo-20261207-120000/p64-o64-r10-cold/000123", i, ChunkKind.ANSWER, 1, 1_765_108_800_000_000L + 20_000L * i, false);
            chunks = chunks == null ? c : TokenRuns.append(chunks, c);
        }
        final byte[] runBytes = new AvroSerializer<TokenEvent>(registry, false).serialize(TOKENS, chunks);
        run = new Record<>(chunks.getRequestId(), runBytes, 1_765_108_800_500L);
        verdict = RequestVerdict.newBuilder().setContractId(CONTRACT).setRunId("demo-20261207-120000").setScenarioId("p64-o64-r10-cold")
                .setRequestId("demo-20261207-120000/p64-o64-r10-cold/000123").setCompletionTimeUs(T0).setStatus(RequestStatus.OK)
                .setTtftUs(120_000L).setTtfatUs(120_000L).setE2eUs(900_000L).setTpotUs(12_345.5).setDispatchLatenessUs(15)
                .setOutputTokens(64).setSloPass(true).setFailedObjectives(List.of()).setQualityPass(true).setGood(true)
                .setTargetId("sim").setPromptTokens(64).build();
        requestReader = new RequestReader(registry);
        requestAvro = new AvroDeserializer<>(registry, RequestEvent.class);
        runAvro = new AvroDeserializer<>(registry, TokenEvent.class);
        tokenInput = new TokenInput(new RunReader(registry), runAvro, new AvroSerializer<>(registry, false), TOKENS,
                Set.of(CONTRACT), null);
        verdictWriter = new VerdictWriter(registry);
        verdictAvro = new AvroSerializer<>(registry, false);
        if (!requestReader.inPlace() || requestReader.read(request) == null || !tokenInput.read(run) || tokenInput.size() != RUN_CHUNKS
                || !verdictWriter.inPlace()) {
            throw new IllegalStateException("the hand-written codecs do not read or write these records: nothing to compare");
        }
        // warm the registry client's caches: no schema fetch in the measured loop
        requestAvro.deserialize(REQUESTS, request);
        runAvro.deserialize(TOKENS, runBytes);
        verdictWriter.serialize(VERDICTS, verdict);
        verdictAvro.serialize(VERDICTS, verdict);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        server.close();
    }

    @Benchmark
    public RequestEvent requestEventHandWritten() {
        return requestReader.read(request);
    }

    @Benchmark
    public RequestEvent requestEventAvro() {
        return requestAvro.deserialize(REQUESTS, request);
    }

    @Benchmark
    public long runOf25ChunksHandWritten() {
        tokenInput.read(run);
        return tokenInput.arrivalUs();
    }

    @Benchmark
    public long runOf25ChunksAvro() {
        final TokenEvent e = runAvro.deserialize(TOKENS, run.value());
        return e.getArrivalTimeUs().toEpochMilli() + e.getMoreChunks().size();
    }

    @Benchmark
    public byte[] verdictHandWritten() {
        return verdictWriter.serialize(VERDICTS, verdict);
    }

    @Benchmark
    public byte[] verdictAvro() {
        return verdictAvro.serialize(VERDICTS, verdict);
    }
}
