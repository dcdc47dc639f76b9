package dev.goodput.streams;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.records.TokenRuns;
import dev.goodput.topics.Control;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * A TopologyTestDriver around the real topology, with helpers that write token and request events
 * at explicit event times (microseconds from a fixed epoch) and read every output topic.
 */
final class Fixture implements AutoCloseable {
    static final Contract CONTRACT = ContractLoader.load(Path.of("../config/contract.yaml"));
    /** 2026-11-29T12:00:00Z in microseconds: a window boundary for 10 s windows. */
    static final long T0 = Instant.parse("2026-11-29T12:00:00Z").toEpochMilli() * 1_000;

    final InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0);
    final AvroSerdes serdes = new AvroSerdes(new SchemaRegistryClient(registry.url()));
    final StreamsSettings config;
    final TopologyTestDriver driver;
    final TestInputTopic<String, TokenEvent> tokens;
    final TestInputTopic<String, RequestEvent> requests;
    final TestInputTopic<String, byte[]> rawTokens;
    final TestInputTopic<String, byte[]> rawRequests;
    final TestOutputTopic<String, RequestVerdict> verdicts;
    final TestOutputTopic<String, WindowStats> windows;
    final TestOutputTopic<String, byte[]> dlq;
    /** 0: every chunk piped as an event of its own; n: consecutive chunks of one request piped as runs of up to n. */
    private final int runSize;
    /** The run being gathered, and the log time of its last chunk (a run's record time, as the generator sends it). */
    private TokenEvent pending;
    private long pendingLogMs;

    Fixture() {
        this(StreamsSettings.defaults(Map.of(CONTRACT.id(), CONTRACT)));
    }

    Fixture(StreamsSettings config) {
        this(config, 0);
    }

    Fixture(StreamsSettings config, int runSize) {
        this.config = config;
        this.runSize = runSize;
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "goodput-test");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        p.putAll(StreamsApp.recordFailureProperties(config));
        driver = new TopologyTestDriver(GoodputTopology.build(config, serdes), p, Instant.ofEpochMilli(T0 / 1000));
        final var t = config.topics();
        tokens = driver.createInputTopic(t.tokens(), Serdes.String().serializer(), serdes.value(TokenEvent.class).serializer());
        requests = driver.createInputTopic(t.requests(), Serdes.String().serializer(), serdes.value(RequestEvent.class).serializer());
        rawTokens = driver.createInputTopic(t.tokens(), Serdes.String().serializer(), Serdes.ByteArray().serializer());
        rawRequests = driver.createInputTopic(t.requests(), Serdes.String().serializer(), Serdes.ByteArray().serializer());
        verdicts = driver.createOutputTopic(t.verdicts(), Serdes.String().deserializer(),
                serdes.value(RequestVerdict.class).deserializer());
        windows = driver.createOutputTopic(t.windowStats(), Serdes.String().deserializer(),
                serdes.value(WindowStats.class).deserializer());
        dlq = driver.createOutputTopic(t.dlq(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
    }

    static Instant at(long us) {
        return Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1_000L);
    }

    void token(String requestId, int index, long arrivalUs, int tokenCount, ChunkKind kind) {
        token(CONTRACT.id(), requestId, index, arrivalUs, tokenCount, kind);
    }

    void token(String contractId, String requestId, int index, long arrivalUs, int tokenCount, ChunkKind kind) {
        tokenLogged(contractId, requestId, index, arrivalUs, tokenCount, kind, arrivalUs / 1000);
    }

    /** A token event whose record has log time {@code logMs} (the broker's append time). */
    void tokenLogged(String contractId, String requestId, int index, long arrivalUs, int tokenCount, ChunkKind kind,
                     long logMs) {
        final TokenEvent e = TokenEvent.newBuilder().setContractId(contractId).setRunId("run")
                .setScenarioId("s1").setRequestId(requestId).setChunkIndex(index).setKind(kind).setTokens(tokenCount)
                .setArrivalTimeUs(at(arrivalUs)).setWarmup(false).build();
        if (runSize == 0) {
            tokens.pipeInput(requestId, e, logMs);
            return;
        }
        if (pending != null && !pending.getRequestId().equals(requestId)) {
            flushTokens();
        }
        if (pending == null) {
            pending = e;
        } else {
            TokenRuns.append(pending, e);
        }
        pendingLogMs = Math.max(pendingLogMs, logMs);
        if (TokenRuns.size(pending) == runSize) {
            flushTokens();
        }
    }

    /** A request event whose record has log time {@code logMs}. */
    void requestLogged(RequestEvent e, long logMs) {
        flushTokens();
        requests.pipeInput(e.getRequestId(), e, logMs);
    }

    /** A control record (a generator's tick) on the token or the request topic, at log time {@code logMs}. */
    void control(boolean tokenTopic, long logMs) {
        control(tokenTopic, logMs, Control.TICK);
    }

    /** A control record of the given kind ({@link Control#TICK}, {@link Control#END_OF_RUN}) at log time {@code logMs}. */
    void control(boolean tokenTopic, long logMs, String kind) {
        flushTokens();
        final RecordHeaders h = new RecordHeaders();
        h.add(Control.HEADER, Control.utf8(kind));
        if (tokenTopic) {
            rawTokens.pipeInput(new TestRecord<>(null, null, h, logMs));
        } else {
            rawRequests.pipeInput(new TestRecord<>(null, null, h, logMs));
        }
    }

    /** A token record of any bytes, after the run being gathered. */
    void rawToken(String key, byte[] value, long timestampMs) {
        flushTokens();
        rawTokens.pipeInput(key, value, timestampMs);
    }

    /** Pipes the run being gathered as one token event (as the generator's sink sends it). */
    void flushTokens() {
        if (pending == null) {
            return;
        }
        tokens.pipeInput(pending.getRequestId(), pending, pendingLogMs);
        pending = null;
        pendingLogMs = 0;
    }

    /** One request: its chunks at the given arrival times (1 token each unless given), then its request event. */
    RequestEvent.Builder ok(String id, long intendedUs, long[] arrivals) {
        return okEvent(id, intendedUs, arrivals);
    }

    static RequestEvent.Builder okEvent(String id, long intendedUs, long[] arrivals) {
        return RequestEvent.newBuilder().setContractId(CONTRACT.id()).setRunId("run").setScenarioId("s1")
                .setTargetId("sim").setGpuType("H100").setGpuCount(1).setRequestId(id).setAttempt(1)
                .setIntendedSendTimeUs(at(intendedUs)).setActualSendTimeUs(at(intendedUs + 100))
                .setFirstChunkTimeUs(at(arrivals[0])).setFirstAnswerTimeUs(at(arrivals[0]))
                .setLastChunkTimeUs(at(arrivals[arrivals.length - 1]))
                .setCompletionTimeUs(at(arrivals[arrivals.length - 1] + 10))
                .setPromptTokens(10).setOutputTokens(arrivals.length).setOutputTokensSource(TokenCountSource.SERVER_USAGE)
                .setContentChunks(arrivals.length).setStatus(RequestStatus.OK).setHttpStatus(200)
                .setQualityScore(1.0).setQualityPass(true).setWarmup(false);
    }

    void sendChunks(String id, long[] arrivals) {
        for (int i = 0; i < arrivals.length; i++) {
            token(id, i, arrivals[i], 1, ChunkKind.ANSWER);
        }
    }

    void request(RequestEvent e) {
        flushTokens();
        requests.pipeInput(e.getRequestId(), e, e.getCompletionTimeUs().toEpochMilli());
    }

    /** A complete OK request with one token per chunk. */
    void okRequest(String id, long intendedUs, long... arrivals) {
        sendChunks(id, arrivals);
        request(ok(id, intendedUs, arrivals).build());
    }

    void failedRequest(String id, long intendedUs, long completionUs, RequestStatus status, String errorClass) {
        request(failedEvent(id, intendedUs, completionUs, status, errorClass));
    }

    static RequestEvent failedEvent(String id, long intendedUs, long completionUs, RequestStatus status, String errorClass) {
        return RequestEvent.newBuilder().setContractId(CONTRACT.id()).setRunId("run").setScenarioId("s1")
                .setTargetId("sim").setGpuType("H100").setGpuCount(1).setRequestId(id).setAttempt(1)
                .setIntendedSendTimeUs(at(intendedUs)).setActualSendTimeUs(at(intendedUs + 50))
                .setCompletionTimeUs(at(completionUs)).setPromptTokens(10).setOutputTokens(0)
                .setOutputTokensSource(TokenCountSource.CHUNK_COUNT).setContentChunks(0).setStatus(status)
                .setErrorClass(errorClass).setWarmup(false).build();
    }

    /** Lets heartbeats and live updates run (wall-clock punctuations). */
    void tick() {
        flushTokens();
        driver.advanceWallClockTime(Duration.ofMillis(1100));
    }

    /** Moves event time past a window's end + grace with a trailing request, and lets the merger close it. */
    void closeThrough(long eventTimeUs) {
        okRequest("trailer-" + eventTimeUs, eventTimeUs - 1000, eventTimeUs);
        tick();
        tick();
    }

    List<WindowStats> finals() {
        final List<WindowStats> out = new ArrayList<>();
        for (TestRecord<String, WindowStats> r : windows.readRecordsToList()) {
            if (r.value().getIsFinal()) {
                out.add(r.value());
            }
        }
        return out;
    }

    static String header(Headers h, String name) {
        return DeadLetters.header(h, name);
    }

    @Override
    public void close() {
        driver.close();
        registry.close();
    }
}
