package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.ServerTimings;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/** A scenario's cache figures, from its requests' own counts, by hand. */
class CacheSummaryTest {

    private final List<RequestEvent> events = new ArrayList<>();
    private final Map<String, RequestVerdict> verdicts = new HashMap<>();

    private void add(String id, String session, int turn, int prompt, Integer cached, Integer cacheN, long ttftUs, boolean good,
                     long sendMs, long doneMs) {
        events.add(RequestEvent.newBuilder(SampleRecords.request()).setRequestId(id).setPromptTokens(prompt).setCachedPromptTokens(cached)
                .setServerTimings(cacheN == null ? null : new ServerTimings(prompt - cacheN, 10.0, 64, 100.0, cacheN, null))
                .setSessionId(session).setTurn(session == null ? null : turn)
                .setIntendedSendTimeUs(SampleRecords.T0.plusMillis(sendMs)).setCompletionTimeUs(SampleRecords.T0.plusMillis(doneMs)).build());
        verdicts.put(id, RequestVerdict.newBuilder(SampleRecords.verdict()).setRequestId(id).setStatus(RequestStatus.OK).setErrorClass(null)
                .setTtftUs(ttftUs).setGood(good).build());
    }

    @Test
    void hitRateHitsTtftSplitEngineAgreementAndSessions() {
        // session a: a cold first turn, then a turn whose history the engine kept (llama.cpp's counts)
        add("a1", "a", 1, 1_000, 1, 1, 400_000, true, 0, 1_000);
        add("a2", "a", 2, 1_200, 1_050, 1_050, 60_000, true, 3_000, 3_500);
        // session b: its second turn was not good
        add("b1", "b", 1, 1_000, 0, 0, 420_000, true, 100, 1_200);
        add("b2", "b", 2, 1_150, 1_100, 1_099, 50_000, false, 4_000, 4_400);
        // a request outside any session whose server said nothing of its cache
        add("x", null, 0, 500, null, null, 300_000, true, 200, 900);
        final CacheSummary c = CacheSummary.of("s1", events, verdicts);
        assertThat(c.requests()).isEqualTo(5);
        assertThat(c.reporting()).isEqualTo(4);
        assertThat(c.promptTokens()).isEqualTo(4_350);
        assertThat(c.cachedTokens()).isEqualTo(2_151);
        assertThat(c.hitRate()).isCloseTo(2_151.0 / 4_350, within(1e-12));
        assertThat(c.hits()).isEqualTo(2);
        assertThat(c.ttftP50HitUs()).isCloseTo(50_000L, within(100L));
        assertThat(c.ttftP50MissUs()).isCloseTo(400_000L, within(500L));
        assertThat(List.of(c.engineChecked(), c.engineEqual())).containsExactly(4L, 3L);
        assertThat(List.of(c.sessions(), c.turns(), c.sessionsAllGood())).containsExactly(2L, 4L, 1L);
        // session a took 3.5 s, b 4.3 s: the median of two is the lower (nearest rank)
        assertThat(c.sessionTimeP50Us()).isCloseTo(3_500_000L, within(5_000L));
        assertThat(c.json()).containsEntry("misses", 2L).containsEntry("engine_cache_n_equal", 3L);
    }

    @Test
    void aScenarioWhoseServerSaidNothingHasNoHitRate() {
        add("x", null, 0, 500, null, null, 300_000, true, 0, 900);
        final CacheSummary c = CacheSummary.of("s1", events, verdicts);
        assertThat(c.hitRate()).isNaN();
        assertThat(c.json()).containsEntry("hit_rate", null).containsEntry("sessions", 0L);
        assertThat(c.sessionTimeP50Us()).isNull();
    }
}
