package dev.goodput.capture;

import static dev.goodput.capture.HttpFixtures.baseUrl;
import static dev.goodput.capture.HttpFixtures.runOne;
import static dev.goodput.capture.HttpFixtures.scripted;
import static dev.goodput.capture.HttpFixtures.spec;
import static dev.goodput.capture.HttpFixtures.target;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.loop.MicroClock;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.simulator.SimTrace;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** One request at a time over real HTTP, against the simulator and scripted servers: every ending, every counting rule. */
class RequestExecutionHttpTest {

    private static StreamingClient client;

    @BeforeAll
    static void start() {
        client = new StreamingClient(64);
    }

    @AfterAll
    static void stop() {
        client.close();
    }

    private static SimServer sim(SimConfig c) {
        return new SimServer(c, HttpFixtures.CORPUS, 0, 100_000);
    }

    private static SimTrace trace(SimServer sim, String id) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            for (SimTrace t : sim.drainTraces()) {
                if (t.requestId().equals(id)) {
                    return t;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no trace for " + id);
    }

    private static long us(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    @Test
    void okStreamRoleOnlyFirstChunkDoesNotStartTtft() throws Exception {
        // a slow first step: the role-only chunk comes ~30 ms before the first token
        try (SimServer sim = sim(SimConfig.defaults().withStep(30_000, 0).withOutput(1, 0, 0.0))) {
            final CollectingSink sink = new CollectingSink();
            final long intended = MicroClock.system().nowMicros();
            final RequestEvent e = runOne(client, target(sim.baseUrl()), spec("ok-1", 8, intended), sink);
            final SimTrace truth = trace(sim, "ok-1");
            assertThat(e.getStatus()).isEqualTo(RequestStatus.OK);
            assertThat(e.getErrorClass()).isNull();
            assertThat(e.getHttpStatus()).isEqualTo(200);
            // first content chunk was received after the server wrote it, not at the role-only chunk
            final long firstChunk = us(e.getFirstChunkTimeUs());
            assertThat(firstChunk).isGreaterThanOrEqualTo(truth.firstContentUs());
            // the role-only chunk is recorded too, for the vLLM-convention replay: it came first
            assertThat(us(e.getFirstChoiceTimeUs())).isLessThan(firstChunk);
            assertThat(us(e.getLastChoiceTimeUs())).isGreaterThanOrEqualTo(us(e.getLastChunkTimeUs()));
            assertThat(us(e.getIntendedSendTimeUs())).isEqualTo(intended);
            assertThat(e.getContentChunks()).isEqualTo(8);
            assertThat(sink.tokensOf("ok-1")).extracting(TokenEvent::getChunkIndex).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
            assertThat(us(e.getLastChunkTimeUs())).isGreaterThanOrEqualTo(truth.lastContentUs());
            assertThat(e.getQualityPass()).isTrue();
            assertThat(e.getQualityScore()).isEqualTo(1.0);
        }
    }

    @Test
    void theJettyPathUsedForTlsTargetsMeasuresTheSameWay() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withStep(20_000, 0).withOutput(1, 0, 0.0))) {
            final CollectingSink sink = new CollectingSink();
            final CompletableFuture<RequestEvent> done = new CompletableFuture<>();
            new RequestExecution(spec("j-1", 6, MicroClock.system().nowMicros()), HttpFixtures.RUN, target(sim.baseUrl()),
                    MicroClock.system(), sink, done::complete).start(client.http());
            final RequestEvent e = done.get(10, TimeUnit.SECONDS);
            final SimTrace truth = trace(sim, "j-1");
            assertThat(e.getStatus()).isEqualTo(RequestStatus.OK);
            assertThat(e.getContentChunks()).isEqualTo(6);
            assertThat(us(e.getFirstChunkTimeUs())).isGreaterThanOrEqualTo(truth.firstContentUs());
            assertThat(e.getOutputTokensSource()).isEqualTo(TokenCountSource.SERVER_USAGE);
            assertThat(sink.tokensOf("j-1")).hasSize(6);
        }
    }

    @Test
    void outputTokensFromUsageWhenTheServerReportsIt() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withStep(1_000, 0))) {
            final RequestEvent e = runOne(client, target(sim.baseUrl()), spec("u-1", 12, MicroClock.system().nowMicros()),
                    new CollectingSink());
            assertThat(e.getOutputTokensSource()).isEqualTo(TokenCountSource.SERVER_USAGE);
            assertThat(e.getOutputTokens()).isEqualTo(12);
            assertThat(e.getPromptTokens()).isEqualTo(Prompts.countTokens(HttpFixtures.CORPUS.get(0).prompt()));
        }
    }

    @Test
    void outputTokensCountedFromChunksWithoutUsage() throws Exception {
        final HttpServer s = scripted(List.of(
                "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\"The answer is\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\" Paris.\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
                "data: [DONE]\n\n"), false);
        try {
            final CollectingSink sink = new CollectingSink();
            final RequestEvent e = runOne(client, target(baseUrl(s)), spec("c-1", 50, MicroClock.system().nowMicros()), sink);
            assertThat(e.getStatus()).isEqualTo(RequestStatus.OK);
            assertThat(e.getOutputTokensSource()).isEqualTo(TokenCountSource.CHUNK_COUNT);
            assertThat(e.getOutputTokens()).isEqualTo(2);
            assertThat(e.getQualityPass()).isTrue();
        } finally {
            s.stop(0);
        }
    }

    @Test
    void multiTokenChunksGiveTokensPerChunkFromContinuousUsage() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withStep(1_000, 0).withOutput(4, 0, 0.0))) {
            final CollectingSink sink = new CollectingSink();
            final RequestEvent e = runOne(client, target(sim.baseUrl(), true, true, Duration.ofSeconds(20), Duration.ofSeconds(10)),
                    spec("m-1", 16, MicroClock.system().nowMicros()), sink);
            assertThat(e.getContentChunks()).isEqualTo(4);
            assertThat(e.getOutputTokens()).isEqualTo(16);
            assertThat(sink.tokensOf("m-1")).extracting(TokenEvent::getTokens).containsExactly(4, 4, 4, 4);
        }
    }

    @Test
    void reasoningChunksAreMarkedAndTimeToFirstAnswerIsSeparate() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withStep(2_000, 0).withOutput(1, 5, 0.0))) {
            final CollectingSink sink = new CollectingSink();
            final RequestEvent e = runOne(client, target(sim.baseUrl()), spec("r-1", 12, MicroClock.system().nowMicros()), sink);
            assertThat(sink.tokensOf("r-1")).extracting(TokenEvent::getKind).startsWith(ChunkKind.REASONING,
                    ChunkKind.REASONING, ChunkKind.REASONING, ChunkKind.REASONING, ChunkKind.REASONING, ChunkKind.ANSWER);
            // five 2 ms steps of reasoning come first on the server; the client can only read the answer
            // later than the server wrote it, however late it read the reasoning (a loaded machine may
            // read the first chunks late and close together, so the gap between its own two reads is no bound)
            final SimTrace truth = trace(sim, "r-1");
            assertThat(us(e.getFirstAnswerTimeUs())).isGreaterThanOrEqualTo(truth.firstContentUs() + 8_000)
                    .isGreaterThan(us(e.getFirstChunkTimeUs()));
            assertThat(us(e.getFirstChunkTimeUs())).isGreaterThanOrEqualTo(truth.firstContentUs());
        }
    }

    @Test
    void qualityMissesAreScored() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withStep(1_000, 0).withOutput(1, 0, 1.0))) {
            final RequestEvent e = runOne(client, target(sim.baseUrl()), spec("q-1", 10, MicroClock.system().nowMicros()),
                    new CollectingSink());
            assertThat(e.getStatus()).isEqualTo(RequestStatus.OK);
            assertThat(e.getQualityScore()).isEqualTo(0.0);
            assertThat(e.getQualityPass()).isFalse();
        }
    }

    @Test
    void overloadIsAnHttpErrorClass() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withCapacity(1, 0))) {
            final RequestEvent e = runOne(client, target(sim.baseUrl()), spec("o-1", 4, MicroClock.system().nowMicros()),
                    new CollectingSink());
            assertThat(e.getStatus()).isEqualTo(RequestStatus.ERROR);
            assertThat(e.getErrorClass()).isEqualTo("http_429");
            assertThat(e.getHttpStatus()).isEqualTo(429);
            assertThat(e.getErrorMessage()).contains("overloaded");
            assertThat(e.getQualityScore()).isNull();
        }
    }

    @Test
    void serverErrorIsAnHttpErrorClass() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withErrors(1.0, 0, 0, 0))) {
            final RequestEvent e = runOne(client, target(sim.baseUrl()), spec("e-1", 4, MicroClock.system().nowMicros()),
                    new CollectingSink());
            assertThat(e.getStatus()).isEqualTo(RequestStatus.ERROR);
            assertThat(e.getErrorClass()).isEqualTo("http_500");
        }
    }

    @Test
    void unreachableTargetIsAConnectionError() throws Exception {
        final String url = "http://127.0.0.1:" + EmbeddedKafka.freePort() + "/v1";
        final RequestEvent e = runOne(client, target(url), spec("x-1", 4, MicroClock.system().nowMicros()), new CollectingSink());
        assertThat(e.getStatus()).isEqualTo(RequestStatus.ERROR);
        assertThat(e.getErrorClass()).isEqualTo("connection");
        assertThat(e.getHttpStatus()).isNull();
    }

    @Test
    void resetMidStreamIsAConnectionErrorAfterSomeChunks() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withStep(1_000, 0).withErrors(0, 1.0, 0, 0))) {
            final CollectingSink sink = new CollectingSink();
            final RequestEvent e = runOne(client, target(sim.baseUrl()), spec("rs-1", 40, MicroClock.system().nowMicros()), sink);
            assertThat(e.getStatus()).isEqualTo(RequestStatus.ERROR);
            assertThat(e.getErrorClass()).isIn("connection", "protocol");
            assertThat(trace(sim, "rs-1").outcome()).isEqualTo("reset");
        }
    }

    @Test
    void aStalledStreamTimesOut() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withStep(1_000, 0).withErrors(0, 0, 1.0, 5_000))) {
            final RequestEvent e = runOne(client, target(sim.baseUrl(), true, false, Duration.ofSeconds(20), Duration.ofMillis(300)),
                    spec("st-1", 40, MicroClock.system().nowMicros()), new CollectingSink());
            assertThat(e.getStatus()).isEqualTo(RequestStatus.TIMEOUT);
            assertThat(e.getErrorClass()).isEqualTo("timeout");
            assertThat(e.getErrorMessage()).contains("stalled");
        }
    }

    @Test
    void aSlowRequestHitsTheRequestTimeout() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withStep(20_000, 0))) {
            final RequestEvent e = runOne(client, target(sim.baseUrl(), true, false, Duration.ofMillis(200), Duration.ofSeconds(10)),
                    spec("to-1", 100, MicroClock.system().nowMicros()), new CollectingSink());
            assertThat(e.getStatus()).isEqualTo(RequestStatus.TIMEOUT);
            assertThat(e.getErrorMessage()).contains("not finished within 200 ms");
        }
    }

    @Test
    void malformedEventIsAProtocolError() throws Exception {
        final HttpServer s = scripted(List.of("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":\n\n", "data: [DONE]\n\n"), false);
        try {
            final RequestEvent e = runOne(client, target(baseUrl(s)), spec("p-1", 4, MicroClock.system().nowMicros()),
                    new CollectingSink());
            assertThat(e.getStatus()).isEqualTo(RequestStatus.ERROR);
            assertThat(e.getErrorClass()).isEqualTo("protocol");
            assertThat(e.getErrorMessage()).contains("malformed");
        } finally {
            s.stop(0);
        }
    }

    @Test
    void aResponseWithNoContentIsAProtocolError() throws Exception {
        final HttpServer s = scripted(List.of("data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", "data: [DONE]\n\n"), false);
        try {
            final RequestEvent e = runOne(client, target(baseUrl(s)), spec("n-1", 4, MicroClock.system().nowMicros()),
                    new CollectingSink());
            assertThat(e.getStatus()).isEqualTo(RequestStatus.ERROR);
            assertThat(e.getErrorClass()).isEqualTo("protocol");
            assertThat(e.getErrorMessage()).contains("no content");
            assertThat(e.getFirstChunkTimeUs()).isNull();
        } finally {
            s.stop(0);
        }
    }

    @Test
    void aStreamCutBeforeItsEndIsAProtocolError() throws Exception {
        final HttpServer s = scripted(List.of("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"), false);
        try {
            final RequestEvent e = runOne(client, target(baseUrl(s)), spec("t-1", 4, MicroClock.system().nowMicros()),
                    new CollectingSink());
            assertThat(e.getStatus()).isEqualTo(RequestStatus.ERROR);
            assertThat(e.getErrorClass()).isEqualTo("protocol");
            assertThat(e.getContentChunks()).isEqualTo(1);
        } finally {
            s.stop(0);
        }
    }

    @Test
    void aRequestStillRunningWhenTheRunEndsIsAbandoned() throws Exception {
        try (SimServer sim = sim(SimConfig.defaults().withStep(20_000, 0))) {
            final CompletableFuture<RequestEvent> done = new CompletableFuture<>();
            final RequestExecution exec = new RequestExecution(spec("a-1", 200, MicroClock.system().nowMicros()),
                    HttpFixtures.RUN, target(sim.baseUrl()), MicroClock.system(), new CollectingSink(), done::complete);
            exec.start(client);
            Thread.sleep(150);
            exec.abandon();
            final RequestEvent e = done.get(10, TimeUnit.SECONDS);
            assertThat(e.getStatus()).isEqualTo(RequestStatus.ABANDONED);
            assertThat(e.getErrorClass()).isEqualTo("abandoned");
        }
    }
}
