package dev.goodput.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import org.HdrHistogram.Histogram;

/**
 * What the server's prefix cache did in one scenario, from its measured requests: how many said
 * (their usage report's {@code cached_tokens}), the token-weighted hit rate ({@link
 * Definitions#cacheHitRate}), hits and misses ({@link Definitions#cacheHit}) with the TTFT p50 of
 * each, the engine's own count beside the client's where the stream carries it (llama.cpp's {@code
 * timings.cache_n}), and its sessions: how many, their turns, how many were good turn after turn,
 * and how long they took.
 *
 * @param reporting        measured requests whose usage report said how many prompt tokens were cached
 * @param engineChecked    requests with both the usage report's count and the engine's {@code cache_n}
 * @param engineEqual      of those, the requests where the two are equal
 * @param sessionTimeP50Us a session's first intended send to its last completion, median; null without sessions
 */
public record CacheSummary(String scenarioId, long requests, long reporting, long promptTokens, long cachedTokens, long hits,
                           Long ttftP50HitUs, Long ttftP50MissUs, long engineChecked, long engineEqual, long sessions,
                           long turns, long sessionsAllGood, Long sessionTimeP50Us) {

    /** The token-weighted hit rate; NaN when no request said. */
    public double hitRate() {
        return Definitions.cacheHitRate(cachedTokens, promptTokens);
    }

    /** Each scenario's, by scenario id, over the run's measured requests. */
    public static Map<String, CacheSummary> of(RunRecords run) {
        final Map<String, RequestVerdict> verdicts = new HashMap<>();
        run.verdicts().forEach(v -> verdicts.put(v.getRequestId(), v));
        final Map<String, List<RequestEvent>> byScenario = new LinkedHashMap<>();
        run.requests().stream().filter(e -> !e.getWarmup())
                .forEach(e -> byScenario.computeIfAbsent(e.getScenarioId(), k -> new ArrayList<>()).add(e));
        final Map<String, CacheSummary> out = new LinkedHashMap<>();
        byScenario.forEach((id, events) -> out.put(id, of(id, events, verdicts)));
        return out;
    }

    static CacheSummary of(String scenarioId, List<RequestEvent> events, Map<String, RequestVerdict> verdicts) {
        long reporting = 0, prompt = 0, cached = 0, hits = 0, checked = 0, equal = 0;
        final Histogram hit = new Histogram(3);
        final Histogram miss = new Histogram(3);
        final Map<String, long[]> sessions = new LinkedHashMap<>();
        for (RequestEvent e : events) {
            final RequestVerdict v = verdicts.get(e.getRequestId());
            final Integer c = e.getCachedPromptTokens();
            if (c != null && e.getStatus() == RequestStatus.OK) {
                reporting++;
                prompt += e.getPromptTokens();
                cached += c;
                final boolean isHit = Definitions.cacheHit(c, e.getPromptTokens());
                hits += isHit ? 1 : 0;
                if (v != null && v.getTtftUs() != null) {
                    (isHit ? hit : miss).recordValue(Math.max(0, v.getTtftUs()));
                }
                if (e.getServerTimings() != null && e.getServerTimings().getCacheN() != null) {
                    checked++;
                    equal += e.getServerTimings().getCacheN().equals(c) ? 1 : 0;
                }
            }
            if (e.getSessionId() != null) {
                // {turns, all good (1/0), first intended send, last completion}
                final long[] s = sessions.computeIfAbsent(e.getSessionId(), k -> new long[] {0, 1, Long.MAX_VALUE, Long.MIN_VALUE});
                s[0]++;
                s[1] &= v != null && v.getGood() ? 1 : 0;
                s[2] = Math.min(s[2], Micros.of(e.getIntendedSendTimeUs()));
                s[3] = Math.max(s[3], Micros.of(e.getCompletionTimeUs()));
            }
        }
        final Histogram sessionTime = new Histogram(3);
        long turns = 0, allGood = 0;
        for (long[] s : sessions.values()) {
            turns += s[0];
            allGood += s[1];
            sessionTime.recordValue(Math.max(0, s[3] - s[2]));
        }
        return new CacheSummary(scenarioId, events.size(), reporting, prompt, cached, hits, p50(hit), p50(miss), checked, equal,
                sessions.size(), turns, allGood, sessions.isEmpty() ? null : sessionTime.getValueAtPercentile(50));
    }

    private static Long p50(Histogram h) {
        return h.getTotalCount() == 0 ? null : h.getValueAtPercentile(50);
    }

    /** As summary.json carries it under each scenario ({@code cache}). */
    public Map<String, Object> json() {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("requests_reporting", reporting);
        m.put("prompt_tokens", promptTokens);
        m.put("cached_prompt_tokens", cachedTokens);
        m.put("hit_rate", Double.isNaN(hitRate()) ? null : hitRate());
        m.put("hits", hits);
        m.put("misses", reporting - hits);
        m.put("ttft_p50_hit_us", ttftP50HitUs);
        m.put("ttft_p50_miss_us", ttftP50MissUs);
        m.put("engine_cache_n_checked", engineChecked);
        m.put("engine_cache_n_equal", engineEqual);
        m.put("sessions", sessions);
        m.put("turns", turns);
        m.put("sessions_all_good", sessionsAllGood);
        m.put("session_time_p50_us", sessionTimeP50Us);
        return m;
    }
}
