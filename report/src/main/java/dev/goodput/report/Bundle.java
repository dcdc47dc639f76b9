package dev.goodput.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import dev.goodput.records.LatencySummaries;
import dev.goodput.report.peers.PeerFiles;
import org.HdrHistogram.Histogram;

/**
 * Writes a report as one folder a team can publish: the page ({@code index.html}), the contract,
 * the raw per-request results, percentiles per scenario and window, failures, quality, cost,
 * the generator's own figures, the assumptions, and a manifest with provenance and every file's
 * sha256. {@code summary.json} is what {@code goodput compare} reads.
 */
public final class Bundle {

    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Bundle() {
    }

    /** Writes the bundle into {@code dir} (created; files already there are replaced) and returns the page's path. */
    public static Path write(Path dir, Report r) {
        try {
            Files.createDirectories(dir);
            final Map<String, byte[]> files = new LinkedHashMap<>();
            files.put("contract.yaml", r.contractText().getBytes(StandardCharsets.UTF_8));
            files.put("contract.canonical.json", r.contract().canonicalJson().getBytes(StandardCharsets.UTF_8));
            files.put("requests.csv", utf8(requestsCsv(r.run())));
            files.put("requests.jsonl", utf8(requestsJsonl(r.run())));
            files.put("scenarios.csv", utf8(scenariosCsv(r)));
            files.put("windows.csv", utf8(windowsCsv(r.run().windows())));
            files.put("failures.csv", utf8(failuresCsv(r)));
            files.put("cost.csv", utf8(costCsv(r.run().costs())));
            files.put("generator.csv", utf8(generatorCsv(r.run().runs())));
            files.put("engine.csv", utf8(EngineTable.csv(EngineTable.rows(r.run()))));
            files.put("engine-timeline.csv", utf8(EngineTimeline.csv(EngineTimeline.spans(r.run()))));
            files.put("assumptions.json", JSON.writeValueAsBytes(assumptions(r)));
            files.put("summary.json", JSON.writeValueAsBytes(summary(r)));
            files.put("index.html", utf8(HtmlPage.render(r)));
            files.putAll(PeerFiles.of(r));
            final Map<String, String> hashes = new LinkedHashMap<>();
            for (var e : files.entrySet()) {
                final Path file = dir.resolve(e.getKey());
                Files.createDirectories(file.getParent());
                Files.write(file, e.getValue());
                hashes.put(e.getKey(), ContractLoader.sha256(e.getValue()));
            }
            Files.write(dir.resolve("manifest.json"), JSON.writeValueAsBytes(manifest(r, hashes)));
            return dir.resolve("index.html");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report bundle to " + dir + ": " + e.getMessage(), e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Map<String, Object> manifest(Report r, Map<String, String> hashes) {
        final Map<String, Object> m = new LinkedHashMap<>();
        final Provenance p = r.provenance();
        m.put("run_id", r.run().runId());
        m.put("replay_id", r.run().replayId());
        m.put("skipped_records", r.run().skipped());
        m.put("incomplete_scenarios", r.run().incompleteScenarios());
        m.put("peer_files_skipped", PeerFiles.skipped(r));
        m.put("scenarios_not_run", p.scenariosNotRun());
        m.put("scenarios_cut_short", r.run().runs().stream().filter(s -> Boolean.TRUE.equals(s.getStoppedEarly()))
                .map(RunSummary::getScenarioId).toList());
        m.put("measured_requests", r.run().measuredRequests());
        m.put("generators_counted", r.run().generatorsCounted());
        m.put("verdicts", r.run().verdicts().size());
        m.put("dead_letters_by_reason", r.run().deadLetters());
        m.put("refused_at_the_door", r.run().refused());
        m.put("contract_id", r.contract().id());
        m.put("corpus_sha256", r.contract().corpus().sha256());
        m.put("created_at", p.createdAt().toString());
        final Map<String, Object> versions = new LinkedHashMap<>();
        versions.put("goodput", p.goodputVersion());
        versions.put("java", p.javaVersion());
        versions.put("jvm", p.javaVm());
        versions.put("kafka_clients", p.kafkaClientVersion());
        versions.put("kafka_cluster", p.kafkaBroker());
        versions.put("os", p.os());
        versions.put("target_server", p.targetVersion());
        versions.put("target_ids", r.run().runs().stream().map(RunSummary::getTargetId).distinct().toList());
        m.put("versions", versions);
        m.put("commands", p.commands());
        m.put("files_sha256", hashes);
        return m;
    }

    static String requestsCsv(RunRecords run) {
        final Csv csv = new Csv(REQUEST_COLUMNS);
        for (Map<String, Object> row : RequestRows.of(run)) {
            csv.row(new ArrayList<>(row.values()));
        }
        return csv.toString();
    }

    static String requestsJsonl(RunRecords run) throws IOException {
        final StringBuilder sb = new StringBuilder();
        final ObjectMapper compact = new ObjectMapper();
        for (Map<String, Object> row : RequestRows.of(run)) {
            sb.append(compact.writeValueAsString(row)).append('\n');
        }
        return sb.toString();
    }

    static final List<String> REQUEST_COLUMNS = List.of("request_id", "scenario_id", "attempt", "warmup", "status", "error_class",
            "http_status", "error_message", "intended_send_time_us", "actual_send_time_us", "dispatch_lateness_us",
            "first_chunk_time_us", "first_answer_time_us", "last_chunk_time_us", "completion_time_us", "prompt_tokens",
            "output_tokens", "output_tokens_source", "content_chunks", "quality_score", "quality_pass", "ttft_us", "ttfat_us",
            "tpot_us", "e2e_us", "slo_pass", "failed_objectives", "good", "intended_prompt_tokens", "resends", "resend_reason",
            "engine_prompt_n", "engine_prompt_ms", "engine_predicted_n", "engine_predicted_ms", "engine_cache_n",
            "cached_prompt_tokens", "session_id", "turn");

    private static final List<String> PERCENTILE_COLUMNS = List.of("count", "p50_us", "p90_us", "p95_us", "p99_us", "p999_us",
            "max_us", "mean_us");

    static List<Object> percentiles(Histogram h) {
        final LatencySummary s = LatencySummaries.of(h);
        return percentiles(s);
    }

    static List<Object> percentiles(LatencySummary s) {
        return List.of(s.getCount(), s.getP50Us(), s.getP90Us(), s.getP95Us(), s.getP99Us(), s.getP999Us(), s.getMaxUs(),
                s.getMeanUs());
    }

    static String scenariosCsv(Report r) {
        final List<String> header = new ArrayList<>(List.of("scenario_id", "arrival", "load", "closed_loop", "measured_s", "windows",
                "all_windows_final", "requests", "ok", "errors", "timeouts", "abandoned", "slo_pass", "quality_pass", "good",
                "good_fraction", "goodput_rps", "output_tokens_ok", "output_tokens_good", "output_tokens_per_s", "in_flight",
                "hourly_cost_usd", "cost_per_successful_m_usd", "generator_saturated"));
        for (String m : ScenarioSummary.METRICS) {
            PERCENTILE_COLUMNS.forEach(c -> header.add(m + "_" + c));
        }
        for (String m : ScenarioSummary.TAIL_METRICS) {
            header.addAll(List.of(m + "_p99_samples", m + "_p99_nearest_rank_us", m + "_p99_min_samples", m + "_p99_supported",
                    m + "_p99_early_stopping_estimate_us"));
        }
        final Csv csv = new Csv(header);
        final List<ScenarioSummary> all = new ArrayList<>(r.scenarios());
        all.add(r.total());
        for (ScenarioSummary s : all) {
            final List<Object> row = new ArrayList<>(List.of(s.scenarioId(), s.arrival(), s.load(), s.closedLoop(), s.measuredSeconds(),
                    s.windows(), s.allFinal(), s.requests(), s.ok(), s.errors(), s.timeouts(), s.abandoned(), s.sloPass(),
                    s.qualityPass(), s.good(), s.goodFraction(), s.goodputRps(), s.tokensOk(), s.tokensGood(), s.tokensPerS(),
                    s.inFlight()));
            row.add(s.hourlyCostUsd());
            row.add(s.costPerSuccessfulM());
            row.add(s.generatorSaturated());
            ScenarioSummary.METRICS.forEach(m -> row.addAll(percentiles(s.latency().get(m))));
            for (String m : ScenarioSummary.TAIL_METRICS) {
                final ScenarioSummary.Tail t = s.earlyStopping().get(m);
                row.addAll(List.of(t.samples(), t.nearestRankP99Us(), t.verdict().minSamples(), t.verdict().supported(),
                        t.estimateUs()));
            }
            csv.row(row);
        }
        return csv.toString();
    }

    static String windowsCsv(List<WindowStats> windows) {
        final List<String> header = new ArrayList<>(List.of("scenario_id", "window_start_us", "window_end_us", "final", "requests",
                "ok", "good", "good_fraction", "goodput_rps", "output_tokens_per_s", "late_events"));
        for (String m : ScenarioSummary.METRICS) {
            PERCENTILE_COLUMNS.forEach(c -> header.add(m + "_" + c));
        }
        final Csv csv = new Csv(header);
        for (WindowStats w : windows) {
            final List<Object> row = new ArrayList<>(List.of(w.getScenarioId(), Micros.of(w.getWindowStartUs()),
                    Micros.of(w.getWindowEndUs()), w.getIsFinal(), w.getRequestsTotal(), w.getRequestsOk(),
                    w.getGoodRequests(), w.getGoodFraction(), w.getGoodputRps(), w.getOutputTokensPerS(), w.getLateEvents()));
            for (LatencySummary s : List.of(w.getTtft(), w.getTtfat(), w.getItl(), w.getTpot(), w.getE2e())) {
                row.addAll(percentiles(s));
            }
            csv.row(row);
        }
        return csv.toString();
    }

    static String failuresCsv(Report r) {
        final Csv csv = new Csv(List.of("scenario_id", "class", "requests"));
        for (ScenarioSummary s : r.scenarios()) {
            s.errorsByClass().forEach((k, v) -> csv.row(List.of(s.scenarioId(), k, v)));
        }
        return csv.toString();
    }

    static String costCsv(List<CostRecord> costs) {
        final Csv csv = new Csv(List.of("scenario_id", "window_start_us", "window_end_us", "price_key", "priced", "unpriced_reason",
                "usd_per_gpu_hour", "price_effective_from_us", "price_source", "gpu_count", "window_seconds", "requests_total",
                "good_requests", "output_tokens_ok", "output_tokens_good", "achieved_tokens_per_s", "compute_cost_per_m_usd",
                "cost_per_successful_m_usd", "hourly_cost_usd", "utilization"));
        for (CostRecord c : costs) {
            csv.row(Arrays.asList(c.getScenarioId(), Micros.of(c.getWindowStartUs()), Micros.of(c.getWindowEndUs()),
                    c.getPriceKey(), c.getPriced(), c.getUnpricedReason(), c.getUsdPerGpuHour(),
                    c.getPriceEffectiveFromUs() == null ? null : Micros.of(c.getPriceEffectiveFromUs()), c.getPriceSource(),
                    c.getGpuCount(), c.getWindowSeconds(), c.getRequestsTotal(), c.getGoodRequests(), c.getOutputTokensOk(),
                    c.getOutputTokensGood(), c.getAchievedTokensPerS(), c.getComputeCostPerMUsd(), c.getCostPerSuccessfulMUsd(),
                    c.getHourlyCostUsd(), c.getUtilization()));
        }
        return csv.toString();
    }

    static String generatorCsv(List<RunSummary> runs) {
        final Csv csv = new Csv(List.of("scenario_id", "generator_id", "target_id", "arrival", "rate_rps", "concurrency",
                "started_us", "warmup_end_us", "ended_us", "requests", "warmup_requests", "ok", "error", "timeout", "abandoned",
                "token_events", "lateness_p50_us", "lateness_p99_us", "lateness_max_us", "lateness_bound_us",
                "generator_saturated", "generator_cpu_s", "wall_s"));
        for (RunSummary s : runs) {
            csv.row(Arrays.asList(s.getScenarioId(), s.getGeneratorId(), s.getTargetId(), s.getArrival(), s.getRateRps(),
                    s.getConcurrency(), Micros.of(s.getStartedUs()), Micros.of(s.getWarmupEndUs()),
                    Micros.of(s.getEndedUs()), s.getRequests(), s.getWarmupRequests(), s.getRequestsOk(),
                    s.getRequestsError(), s.getRequestsTimeout(), s.getRequestsAbandoned(), s.getTokenEvents(),
                    s.getLatenessP50Us(), s.getLatenessP99Us(), s.getLatenessMaxUs(), s.getLatenessBoundUs(),
                    s.getGeneratorSaturated(), s.getGeneratorCpuS(), s.getWallS()));
        }
        return csv.toString();
    }

    static Map<String, Object> assumptions(Report r) {
        final Map<String, Object> a = new LinkedHashMap<>();
        final List<Map<String, Object>> prices = new ArrayList<>();
        for (GpuPrice p : r.run().prices()) {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("price_key", p.getPriceKey());
            m.put("provider", p.getProvider());
            m.put("gpu_type", p.getGpuType());
            m.put("usd_per_gpu_hour", p.getUsdPerGpuHour());
            m.put("effective_from", p.getEffectiveFromUs().toString());
            m.put("currency", p.getCurrency());
            m.put("source", p.getSource());
            m.put("cpu_usd_per_hour", p.getCpuUsdPerHour());
            m.put("storage_usd_per_hour", p.getStorageUsdPerHour());
            m.put("network_usd_per_hour", p.getNetworkUsdPerHour());
            m.put("observability_usd_per_hour", p.getObservabilityUsdPerHour());
            m.put("support_usd_per_hour", p.getSupportUsdPerHour());
            m.put("cold_start_gpu_hours_per_hour", p.getColdStartGpuHoursPerHour());
            m.put("warm_headroom_fraction", p.getWarmHeadroomFraction());
            prices.add(m);
        }
        a.put("prices", prices);
        a.put("gpu_type", r.contract().hardware().gpuType());
        a.put("gpu_count", r.contract().hardware().gpuCount());
        a.put("peak_output_tokens_per_s", r.contract().hardware().peakOutputTokensPerS());
        a.put("utilization", "achieved output tokens/s over peak_output_tokens_per_s (null when no peak is configured)");
        a.put("cost_formula", "hourly cost (GPUs x $/GPU-h + CPU + storage + network + observability + support + cold-start GPU-h x $/GPU-h)"
                + " x (1 + warm headroom) x hours / output tokens of good requests x 1e6; a scenario is charged its measured time only:"
                + " within each window, the part inside its measured span (warm-up end to its end), so windows shared by two"
                + " scenarios are split between them and idle time between scenarios is charged to none");
        a.put("retail_prices", r.retail().stream().map(RetailPrice::json).toList());
        a.put("idle_seconds_between_scenarios", ChargedTime.idleSeconds(ChargedTime.spans(r.run().runs())));
        a.put("latency_objectives_ms", r.contract().canonical().get("latency_objectives"));
        a.put("judged_by", r.judging().json());
        a.put("what_if", r.judging().against(r.contract()));
        a.put("quality", r.contract().canonical().get("quality"));
        a.put("percentile", "HdrHistogram valueAtPercentile over merged histograms (microseconds, 3 significant digits);"
                + " early stopping: MLPerf LoadGen's rule at the 99th percentile with 99% confidence on exact per-request values");
        a.put("warmup_s", r.contract().arrival().warmupS());
        a.put("decoding_not_sent", r.contract().decoding().notSent());
        a.put("observation", Observation.of(r.contract()));
        return a;
    }

    static Map<String, Object> summary(Report r) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("run_id", r.run().runId());
        m.put("replay_id", r.run().replayId());
        m.put("contract_id", r.contract().id());
        m.put("contract", r.contract().canonical());
        m.put("judged_by", r.judging().json());
        final List<Map<String, Object>> scenarios = new ArrayList<>();
        r.scenarios().forEach(s -> {
            final Map<String, Object> entry = scenario(s);
            entry.put("cache", r.cache().containsKey(s.scenarioId()) ? r.cache().get(s.scenarioId()).json() : null);
            scenarios.add(entry);
        });
        m.put("scenarios", scenarios);
        m.put("retail", r.retailRows().stream().map(RetailComparison::json).toList());
        m.put("engine_cache", r.engineCache() == null ? null : r.engineCache().json());
        m.put("total", scenario(r.total()));
        return m;
    }

    static Map<String, Object> scenario(ScenarioSummary s) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario_id", s.scenarioId());
        m.put("family", s.family());
        m.put("load", s.load());
        m.put("closed_loop", s.closedLoop());
        m.put("measured_s", s.measuredSeconds());
        m.put("requests", s.requests());
        m.put("ok", s.ok());
        m.put("errors", s.errors());
        m.put("timeouts", s.timeouts());
        m.put("abandoned", s.abandoned());
        m.put("errors_by_class", s.errorsByClass());
        m.put("slo_pass", s.sloPass());
        m.put("quality_pass", s.qualityPass());
        m.put("quality_fraction", Definitions.goodFraction(s.qualityPass(), s.ok()));
        m.put("good", s.good());
        m.put("good_fraction", s.goodFraction());
        m.put("goodput_rps", s.goodputRps());
        m.put("output_tokens_per_s", s.tokensPerS());
        m.put("in_flight", s.inFlight());
        m.put("cost_per_successful_m_usd", s.costPerSuccessfulM());
        m.put("all_windows_final", s.allFinal());
        m.put("generator_saturated", s.generatorSaturated());
        final Map<String, Object> lat = new LinkedHashMap<>();
        for (String metric : ScenarioSummary.METRICS) {
            final List<Object> p = percentiles(s.latency().get(metric));
            final Map<String, Object> one = new LinkedHashMap<>();
            for (int i = 0; i < PERCENTILE_COLUMNS.size(); i++) {
                one.put(PERCENTILE_COLUMNS.get(i), p.get(i));
            }
            lat.put(metric, one);
        }
        m.put("latency", lat);
        final Map<String, Object> tails = new LinkedHashMap<>();
        s.earlyStopping().forEach((metric, t) -> {
            final Map<String, Object> one = new LinkedHashMap<>();
            one.put("samples", t.samples());
            one.put("nearest_rank_p99_us", t.nearestRankP99Us());
            one.put("min_samples", t.verdict().minSamples());
            one.put("supported", t.verdict().supported());
            one.put("discarded", t.verdict().discard());
            one.put("early_stopping_p99_us", t.estimateUs());
            tails.put(metric, one);
        });
        m.put("early_stopping_p99", tails);
        return m;
    }
}
