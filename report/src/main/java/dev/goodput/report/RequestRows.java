package dev.goodput.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.ServerTimings;
import dev.goodput.definitions.Micros;

/** The bundle's requests.csv and requests.jsonl rows: each request event beside its verdict and the engine's timings. */
final class RequestRows {
    private RequestRows() {
    }

    /** One row per request event (warm-up included, marked), with its verdict's fields when it has one. */
    static List<Map<String, Object>> of(RunRecords run) {
        final Map<String, RequestVerdict> verdicts = new LinkedHashMap<>();
        run.verdicts().forEach(v -> verdicts.put(v.getRequestId(), v));
        final List<Map<String, Object>> rows = new ArrayList<>();
        for (RequestEvent e : run.requests()) {
            final RequestVerdict v = verdicts.get(e.getRequestId());
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("request_id", e.getRequestId());
            m.put("scenario_id", e.getScenarioId());
            m.put("attempt", e.getAttempt());
            m.put("warmup", e.getWarmup());
            m.put("status", e.getStatus().name());
            m.put("error_class", e.getErrorClass());
            m.put("http_status", e.getHttpStatus());
            m.put("error_message", e.getErrorMessage());
            m.put("intended_send_time_us", Micros.of(e.getIntendedSendTimeUs()));
            m.put("actual_send_time_us", Micros.of(e.getActualSendTimeUs()));
            m.put("dispatch_lateness_us", Micros.of(e.getActualSendTimeUs()) - Micros.of(e.getIntendedSendTimeUs()));
            m.put("first_chunk_time_us", e.getFirstChunkTimeUs() == null ? null : Micros.of(e.getFirstChunkTimeUs()));
            m.put("first_answer_time_us", e.getFirstAnswerTimeUs() == null ? null : Micros.of(e.getFirstAnswerTimeUs()));
            m.put("last_chunk_time_us", e.getLastChunkTimeUs() == null ? null : Micros.of(e.getLastChunkTimeUs()));
            m.put("last_choice_time_us", e.getLastChoiceTimeUs() == null ? null : Micros.of(e.getLastChoiceTimeUs()));
            m.put("completion_time_us", Micros.of(e.getCompletionTimeUs()));
            m.put("prompt_tokens", e.getPromptTokens());
            m.put("output_tokens", e.getOutputTokens());
            m.put("output_tokens_source", e.getOutputTokensSource().name());
            m.put("content_chunks", e.getContentChunks());
            m.put("quality_score", e.getQualityScore());
            m.put("quality_pass", e.getQualityPass());
            m.put("ttft_us", v == null ? null : v.getTtftUs());
            m.put("ttfat_us", v == null ? null : v.getTtfatUs());
            m.put("tpot_us", v == null ? null : v.getTpotUs());
            m.put("e2e_us", v == null ? null : v.getE2eUs());
            m.put("slo_pass", v == null ? null : v.getSloPass());
            m.put("failed_objectives", v == null ? null : String.join(" ", v.getFailedObjectives()));
            m.put("good", v == null ? null : v.getGood());
            m.put("intended_prompt_tokens", e.getIntendedPromptTokens());
            m.put("resends", e.getResends());
            m.put("resend_reason", e.getResendReason());
            final ServerTimings t = e.getServerTimings();
            m.put("engine_prompt_n", t == null ? null : t.getPromptN());
            m.put("engine_prompt_ms", t == null ? null : t.getPromptMs());
            m.put("engine_predicted_n", t == null ? null : t.getPredictedN());
            m.put("engine_predicted_ms", t == null ? null : t.getPredictedMs());
            m.put("engine_cache_n", t == null ? null : t.getCacheN());
            m.put("cached_prompt_tokens", e.getCachedPromptTokens());
            m.put("session_id", e.getSessionId());
            m.put("turn", e.getTurn());
            rows.add(m);
        }
        return rows;
    }

}
