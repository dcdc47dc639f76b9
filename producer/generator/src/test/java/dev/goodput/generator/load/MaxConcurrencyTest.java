package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.goodput.avro.RequestEvent;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.definitions.Micros;
import dev.goodput.loop.MicroClock;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import org.junit.jupiter.api.Test;

/**
 * vLLM's --max-concurrency: an open loop at 40 req/s against requests that take at least 400 ms
 * would hold about 16 in flight; capped at 3 it never holds more, and every request still ends.
 */
class MaxConcurrencyTest {

    private static List<RequestEvent> run(Integer cap) {
        try (SimServer server = new SimServer(SimConfig.defaults().withStep(100_000, 0),
                HttpFixtures.CORPUS, 0);
             StreamingClient client = new StreamingClient(64)) {
            final CollectingSink sink = new CollectingSink();
            final LoadRun.Settings settings = new LoadRun.Settings(HttpFixtures.target(server.baseUrl()), HttpFixtures.RUN,
                    new Scenario(64, 4, 40.0, null, "cold"), HttpFixtures.CORPUS, "g1", "constant", null, 0, null, 30L,
                    0, null, 1_000, 1, Duration.ofSeconds(30), cap);
            new LoadRun(settings, MicroClock.system()).run(client, sink, new PrintStream(OutputStream.nullOutputStream()),
                    () -> null, () -> (long) sink.tokens.size());
            return new ArrayList<>(sink.requests);
        }
    }

    /** The most requests whose [send, completion] intervals overlap at one instant. */
    private static int maxOverlap(List<RequestEvent> events) {
        final List<long[]> edges = new ArrayList<>();
        for (RequestEvent e : events) {
            edges.add(new long[] {Micros.of(e.getActualSendTimeUs()), 1});
            edges.add(new long[] {Micros.of(e.getCompletionTimeUs()), -1});
        }
        // at equal times an end comes before a start: a slot freed and taken at once is not an overlap
        edges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int now = 0;
        int max = 0;
        for (long[] e : edges) {
            now += (int) e[1];
            max = Math.max(max, now);
        }
        return max;
    }

    @Test
    void theCapHoldsRequestsInFlightToItsSizeAndEveryRequestEnds() {
        final List<RequestEvent> capped = run(3);
        assertThat(capped).hasSize(30).allMatch(e -> e.getErrorClass() == null);
        assertThat(maxOverlap(capped)).isEqualTo(3);
        // a request that waited for a slot is timed from when it got one, as vLLM times it
        assertThat(capped).allMatch(e -> !e.getIntendedSendTimeUs().isAfter(e.getActualSendTimeUs()));
    }

    @Test
    void withoutTheCapTheSameLoadHoldsMore() {
        assertThat(maxOverlap(run(null))).isGreaterThan(3);
    }
}
