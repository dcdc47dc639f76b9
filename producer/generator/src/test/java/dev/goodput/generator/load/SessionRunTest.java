package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.StreamingClient;
import dev.goodput.definitions.Micros;
import dev.goodput.loop.MicroClock;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import org.junit.jupiter.api.Test;

/**
 * A session scenario against the simulator: two users, sessions of three turns, 50 ms of think
 * time. Each turn's prompt holds its session's history (the server counts the earlier prompt, the
 * answer it gave and the new question), is intended when the think time after the answer before it
 * ends, and is served in part from the prefix cache.
 */
class SessionRunTest {

    private static final int QUESTION = 32;

    private static List<RequestEvent> run(Scenario scenario, long requests) {
        try (SimServer server = new SimServer(SimConfig.defaults(), HttpFixtures.CORPUS, 0);
             StreamingClient client = new StreamingClient(16)) {
            final CollectingSink sink = new CollectingSink();
            final LoadRun.Settings settings = new LoadRun.Settings(HttpFixtures.target(server.baseUrl()), HttpFixtures.RUN,
                    scenario, HttpFixtures.CORPUS, "g1", "poisson", null, 0, null, requests, 0, null, 1_000, 1,
                    Duration.ofSeconds(30));
            new LoadRun(settings, MicroClock.system()).run(client, sink, new PrintStream(OutputStream.nullOutputStream()),
                    () -> null, () -> (long) sink.tokens.size());
            return new ArrayList<>(sink.requests);
        }
    }

    @Test
    void eachTurnCarriesItsSessionsHistoryAfterTheThinkTime() {
        final Scenario sc = new Scenario(QUESTION, 8, null, 2, "turns3", new Scenario.Sessions(3, 0.05, 4096));
        assertThat(sc.id()).isEqualTo("p32-o8-c2-turns3");
        final List<RequestEvent> events = run(sc, 12);
        assertThat(events).hasSize(12).allMatch(e -> e.getStatus() == RequestStatus.OK).allMatch(e -> e.getSessionId() != null);
        final Map<String, List<RequestEvent>> sessions = events.stream().collect(Collectors.groupingBy(RequestEvent::getSessionId));
        // two users, each through two sessions of three turns
        assertThat(sessions).hasSize(4);
        for (List<RequestEvent> turns : sessions.values()) {
            turns.sort(Comparator.comparing(RequestEvent::getTurn));
            assertThat(turns).extracting(RequestEvent::getTurn).containsExactly(1, 2, 3);
            assertThat(turns.get(0).getIntendedPromptTokens()).isEqualTo(QUESTION);
            for (int k = 1; k < turns.size(); k++) {
                final RequestEvent before = turns.get(k - 1);
                final RequestEvent e = turns.get(k);
                // intended when the think time after the answer before it ended
                assertThat(Micros.of(e.getIntendedSendTimeUs())).isEqualTo(Micros.of(before.getCompletionTimeUs()) + 50_000);
                // the server counted the earlier prompt, the answer it gave (8 tokens of words) and a new question
                assertThat(e.getPromptTokens()).isBetween(before.getPromptTokens() + QUESTION,
                        before.getPromptTokens() + before.getOutputTokens() + QUESTION);
                assertThat(e.getIntendedPromptTokens()).as("a later turn's length is not the generator's to size").isNull();
                // the earlier prompt is the prefix of this one: the cache served at least its whole blocks but one
                assertThat(e.getCachedPromptTokens()).isGreaterThanOrEqualTo(before.getPromptTokens() - 2 * 16);
            }
        }
    }

    @Test
    void aSharedPrefixScenarioIsServedFromTheCacheAndAColdOneIsNot() {
        final List<RequestEvent> shared = run(new Scenario(256, 4, 50.0, null, "shared90"), 30);
        final List<RequestEvent> cold = run(new Scenario(256, 4, 50.0, null, "cold"), 30);
        final double sharedRate = rate(shared.subList(1, shared.size()));
        final double coldRate = rate(cold);
        // 90 % of each prompt one block common to the scenario: the simulator's 16-token blocks hit all but its last partial
        // one (the first requests, sent before the prefix was cached, miss)
        assertThat(sharedRate).isBetween(0.7, 0.9);
        assertThat(coldRate).isLessThan(0.05);
    }

    private static double rate(List<RequestEvent> events) {
        final long cached = events.stream().mapToLong(RequestEvent::getCachedPromptTokens).sum();
        final long prompt = events.stream().mapToLong(RequestEvent::getPromptTokens).sum();
        return (double) cached / prompt;
    }
}
