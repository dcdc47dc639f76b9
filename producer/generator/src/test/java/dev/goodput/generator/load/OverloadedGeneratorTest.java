package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RunSummary;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.loop.MicroClock;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.simulator.SimTrace;
import org.junit.jupiter.api.Test;

/**
 * A generator that cannot keep up (one connection for a load that needs several): the latency it
 * reports must include the time requests spent waiting inside it, measured from the schedule, and
 * the run must say the generator was saturated.
 */
class OverloadedGeneratorTest {

    private static long us(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    @Test
    void reportedLatencyIncludesQueueingInsideTheGenerator() {
        final SimConfig sim = SimConfig.defaults().withStep(4_000, 0).withOutput(1, 0, 0.0);
        try (SimServer server = new SimServer(sim, HttpFixtures.CORPUS, 0, 100_000);
             StreamingClient oneConnection = new StreamingClient(1)) {
            final CollectingSink sink = new CollectingSink();
            // 40 req/s, each request ~8 x 4 ms = 32+ ms on the one connection: demand 1.3x capacity
            final LoadRun.Settings settings = new LoadRun.Settings(HttpFixtures.target(server.baseUrl()), HttpFixtures.RUN,
                    new Scenario(32, 8, 40.0, null, "cold"), HttpFixtures.CORPUS, "g1", "constant", null, 0, null, 60L,
                    0, null, 1_000, 1, Duration.ofSeconds(30));
            final RunSummary summary = new LoadRun(settings, MicroClock.system())
                    .run(oneConnection, sink, new PrintStream(OutputStream.nullOutputStream()), () -> null,
                            () -> (long) sink.tokens.size());
            assertThat(sink.requests).hasSize(60);
            assertThat(sink.requests).allMatch(e -> e.getStatus() == RequestStatus.OK);
            final Map<String, SimTrace> truth = server.drainTraces().stream()
                    .collect(Collectors.toMap(SimTrace::requestId, t -> t));
            final List<RequestEvent> byIntended = sink.requests.stream()
                    .sorted((a, b) -> a.getIntendedSendTimeUs().compareTo(b.getIntendedSendTimeUs())).toList();
            final long t0 = us(byIntended.get(0).getIntendedSendTimeUs());
            long maxQueueing = 0;
            for (int i = 0; i < byIntended.size(); i++) {
                final RequestEvent e = byIntended.get(i);
                // intended times are the schedule's (25 ms apart), not when the busy client got round to them
                assertThat(us(e.getIntendedSendTimeUs()) - t0).isEqualTo(i * 25_000L);
                final SimTrace t = truth.get(e.getRequestId());
                final long ttft = us(e.getFirstChunkTimeUs()) - us(e.getIntendedSendTimeUs());
                final long serverTtft = t.firstContentUs() - t.receivedUs();
                final long queueing = t.receivedUs() - us(e.getIntendedSendTimeUs());
                // reported TTFT = time queued before the server saw it + the server's own TTFT (+ delivery, which
                // has no upper bound on a busy machine, so none is asserted)
                assertThat(ttft).isGreaterThanOrEqualTo(serverTtft + queueing);
                maxQueueing = Math.max(maxQueueing, queueing);
            }
            // the last requests waited far longer than the server's TTFT: a send-time clock would hide this
            assertThat(maxQueueing).isGreaterThan(200_000);
            assertThat(summary.getLatenessP99Us()).isGreaterThan(200_000);
            assertThat(summary.getGeneratorSaturated()).isTrue();
        }
    }
}
