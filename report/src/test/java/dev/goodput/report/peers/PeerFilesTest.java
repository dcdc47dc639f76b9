package dev.goodput.report.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.report.Bundle;
import dev.goodput.report.Provenance;
import dev.goodput.report.Report;
import dev.goodput.report.RunRecords;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/** The peers' files Goodput writes have their keys, types and units, and the values their definitions give. */
class PeerFilesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path FIXTURES = Path.of("src/test/resources/peers");
    private static final Instant T0 = SampleRecords.T0;

    /**
     * Three successful requests sent 1 s apart (intended = actual send + 2 ms lateness), first content
     * chunk at +100/+200/+300 ms, then chunks 10/20/30 ms apart, and one HTTP 500.
     */
    static Report report() {
        return report(false);
    }

    /** As {@link #report()}; with {@code unmeasured}, also scenario "w", stopped within its warm-up (one warm-up request). */
    static Report report(boolean unmeasured) {
        final List<RequestEvent> requests = new ArrayList<>();
        final List<TokenEvent> tokens = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            final Instant send = T0.plusSeconds(i);
            final int chunks = 4;
            for (int c = 0; c < chunks; c++) {
                tokens.add(TokenEvent.newBuilder(SampleRecords.token()).setScenarioId("s").setRequestId("r" + i).setChunkIndex(c)
                        .setKind(ChunkKind.ANSWER).setTokens(1).setWarmup(false)
                        .setArrivalTimeUs(send.plusMillis(100L * (i + 1) + 10L * (i + 1) * c)).build());
            }
            requests.add(RequestEvent.newBuilder(SampleRecords.request()).setScenarioId("s").setRequestId("r" + i).setAttempt(1)
                    .setStatus(RequestStatus.OK).setIntendedSendTimeUs(send.minusMillis(2)).setActualSendTimeUs(send)
                    .setFirstChunkTimeUs(send.plusMillis(100L * (i + 1))).setFirstAnswerTimeUs(send.plusMillis(100L * (i + 1)))
                    .setFirstChoiceTimeUs(null).setLastChoiceTimeUs(null)
                    .setLastChunkTimeUs(send.plusMillis(100L * (i + 1) + 30L * (i + 1)))
                    .setCompletionTimeUs(send.plusMillis(100L * (i + 1) + 30L * (i + 1) + 1)).setPromptTokens(100 + i)
                    .setContentChunks(chunks).setOutputTokens(chunks).setOutputTokensSource(TokenCountSource.SERVER_USAGE)
                    .setOperation("chat").setWarmup(false).build());
        }
        requests.add(RequestEvent.newBuilder(SampleRecords.request()).setScenarioId("s").setRequestId("e").setAttempt(1)
                .setStatus(RequestStatus.ERROR).setErrorClass("http_500").setHttpStatus(500).setErrorMessage("boom")
                .setIntendedSendTimeUs(T0.plusMillis(1500)).setActualSendTimeUs(T0.plusMillis(1500)).setFirstChunkTimeUs(null)
                .setFirstAnswerTimeUs(null).setFirstChoiceTimeUs(null).setLastChoiceTimeUs(null).setLastChunkTimeUs(null)
                .setCompletionTimeUs(T0.plusMillis(1510)).setPromptTokens(100).setContentChunks(0).setOutputTokens(0)
                .setWarmup(false).build());
        final RunSummary run = RunSummary.newBuilder(SampleRecords.runSummary()).setScenarioId("s").setRateRps(1.0).setConcurrency(null)
                .setArrival("poisson").setStartedUs(T0.minusSeconds(1)).setWarmupEndUs(T0).setEndedUs(T0.plusSeconds(3)).build();
        final List<RunSummary> runs = new ArrayList<>(List.of(run));
        if (unmeasured) {
            runs.add(RunSummary.newBuilder(run).setScenarioId("w").setStartedUs(T0.plusSeconds(4)).setWarmupEndUs(T0.plusMillis(4500))
                    .setEndedUs(T0.plusMillis(4500)).setStoppedEarly(true).build());
            requests.add(RequestEvent.newBuilder(requests.get(0)).setScenarioId("w").setRequestId("w0").setWarmup(true).build());
        }
        final RunRecords records = RunRecords.select("run-1", null, runs, requests, List.of(), List.of(), List.of(), List.of())
                .withTokens(tokens);
        final Contract contract = ContractLoader.load(Path.of("../config/contract.yaml"));
        return Report.of(records, contract, "contract", Provenance.here(null, null, Map.of("demo", "goodput demo --duration 40"), List.of()));
    }

    private static JsonNode file(Map<String, byte[]> files, String name) throws IOException {
        assertThat(files).containsKey(name);
        return JSON.readTree(files.get(name));
    }

    private static Set<String> keys(JsonNode n) {
        final Set<String> out = new TreeSet<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }

    /** JSON types agree; null on either side agrees with anything (the peers write null for unset values). */
    private static void sameTypes(JsonNode ours, JsonNode theirs, String where) {
        for (Iterator<String> it = theirs.fieldNames(); it.hasNext(); ) {
            final String k = it.next();
            final JsonNode a = ours.get(k);
            final JsonNode b = theirs.get(k);
            if (a == null || a.isNull() || b.isNull()) {
                continue;
            }
            assertThat(a.isNumber() ? "number" : a.getNodeType().name()).as(where + "." + k)
                    .isEqualTo(b.isNumber() ? "number" : b.getNodeType().name());
        }
    }

    @Test
    void theVllmFileHasVllmsKeysTypesAndUnitsAndVllmsFigures() throws IOException {
        final Map<String, byte[]> files = PeerFiles.of(report());
        final JsonNode ours = file(files, "peers/vllm/s.json");
        final JsonNode theirs = JSON.readTree(FIXTURES.resolve("vllm-bench-serve-save-result.json").toFile());
        assertThat(keys(ours)).containsAll(keys(theirs));
        sameTypes(ours, theirs, "vllm");
        // the --save-detailed lists, as vllm/benchmarks/serve.py writes them: one entry per request, seconds
        for (String k : List.of("input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times",
                "generated_texts", "errors")) {
            assertThat(ours.get(k).size()).as(k).isEqualTo(4);
        }
        assertThat(ours.get("ttfts").get(0).asDouble()).isCloseTo(0.100, within(1e-9));
        assertThat(ours.get("itls").get(1).get(0).asDouble()).isCloseTo(0.020, within(1e-9));
        // in order of actual send: the failed request (at 1.5 s) is the third
        assertThat(ours.get("itls").get(2).size()).as("a failed request has no ITLs").isZero();
        assertThat(ours.get("errors").get(2).asText()).contains("http_500").contains("boom");
        assertThat(ours.get("errors").get(3).asText()).isEmpty();
        assertThat(ours.get("output_lens").get(2).asInt()).isZero();
        assertThat(ours.get("ttfts").get(2).asDouble()).isZero();
        assertThat(ours.get("completed").asInt()).isEqualTo(3);
        assertThat(ours.get("failed").asInt()).isEqualTo(1);
        assertThat(ours.get("total_input_tokens").asInt()).isEqualTo(100 + 101 + 102);
        // TTFTs 100, 200, 300 ms: numpy mean 200, median 200, p99 linear = 200 + 0.98 x 100
        assertThat(ours.get("mean_ttft_ms").asDouble()).isCloseTo(200.0, within(1e-6));
        assertThat(ours.get("median_ttft_ms").asDouble()).isCloseTo(200.0, within(1e-6));
        assertThat(ours.get("p99_ttft_ms").asDouble()).isCloseTo(298.0, within(1e-6));
        assertThat(ours.get("std_ttft_ms").asDouble()).isCloseTo(Math.sqrt(20000.0 / 3), within(1e-6));
        // ITL pools every gap: three of 10, 20 and 30 ms
        assertThat(ours.get("mean_itl_ms").asDouble()).isCloseTo(20.0, within(1e-6));
        // TPOT (latency - TTFT) / (tokens - 1) = 10, 20, 30 ms
        assertThat(ours.get("p50_tpot_ms").asDouble()).isCloseTo(20.0, within(1e-6));
        // duration: first actual send to last completion = 2 s + 391 ms
        assertThat(ours.get("duration").asDouble()).isCloseTo(2.391, within(1e-9));
        assertThat(ours.get("request_throughput").asDouble()).isCloseTo(3 / 2.391, within(1e-9));
        assertThat(ours.get("queue_times").get(0).asDouble()).as("dispatch lateness").isCloseTo(0.002, within(1e-9));
    }

    @Test
    void theAiperfFilesHaveTheLayoutAiperfWritesSinceOctober2025() throws IOException {
        final Map<String, byte[]> files = PeerFiles.of(report());
        final JsonNode ours = file(files, "peers/aiperf/s/profile_export_aiperf.json");
        final JsonNode theirs = JSON.readTree(FIXTURES.resolve("aiperf/profile_export_aiperf.json").toFile());
        assertThat(keys(ours)).isEqualTo(keys(theirs));
        assertThat(ours.has("records")).as("v0.1.1's layout, which AIPerf's current models read as empty").isFalse();
        final Set<String> distribution = keys(theirs.get("time_to_first_token"));
        final Set<String> single = keys(theirs.get("request_throughput"));
        for (Iterator<Map.Entry<String, JsonNode>> it = ours.fields(); it.hasNext(); ) {
            final Map.Entry<String, JsonNode> e = it.next();
            final JsonNode their = theirs.get(e.getKey());
            if (e.getValue().isNull() || !e.getValue().has("unit")) {
                continue;
            }
            assertThat(keys(e.getValue())).as(e.getKey()).isIn(distribution, single);
            if (their != null && !their.isNull()) {
                assertThat(keys(e.getValue())).as(e.getKey()).isEqualTo(keys(their));
                assertThat(e.getValue().get("unit")).as(e.getKey()).isEqualTo(their.get("unit"));
                sameTypes(e.getValue(), their, e.getKey());
            }
        }
        for (String tag : List.of("time_to_first_token", "request_latency", "inter_token_latency", "inter_chunk_latency",
                "input_sequence_length", "output_sequence_length", "request_count", "error_request_count", "request_throughput",
                "output_token_throughput", "benchmark_duration", "total_isl", "total_osl", "min_request_timestamp",
                "max_response_timestamp")) {
            assertThat(ours.get(tag).isNull()).as(tag).isFalse();
        }
        final JsonNode ttft = ours.get("time_to_first_token");
        assertThat(ttft.get("avg").asDouble()).isCloseTo(200.0, within(1e-6));
        assertThat(ttft.get("p99").asDouble()).isCloseTo(298.0, within(1e-6));
        assertThat(ttft.get("p10").asDouble()).isCloseTo(120.0, within(1e-6));
        assertThat(ours.get("request_count").get("avg").asDouble()).isEqualTo(3.0);
        assertThat(ours.get("error_request_count").get("avg").asDouble()).isEqualTo(1.0);
        assertThat(ours.get("error_summary").get(0).get("error_details").get("code").asInt()).isEqualTo(500);

        final List<String> csv = new String(files.get("peers/aiperf/s/profile_export_aiperf.csv"), StandardCharsets.UTF_8).lines().toList();
        final List<String> theirCsv = Files.readAllLines(FIXTURES.resolve("aiperf/profile_export_aiperf.csv"));
        assertThat(csv.get(0)).isEqualTo(theirCsv.get(0));
        assertThat(csv).contains("Metric,Value");
        final Set<String> theirLabels = new TreeSet<>();
        theirCsv.forEach(l -> theirLabels.add(l.split(",")[0]));
        for (String label : List.of("Time to First Token (ms)", "Request Latency (ms)", "Inter Token Latency (ms)",
                "Inter Chunk Latency (ms)", "Request Count", "Request Throughput (requests/sec)", "Benchmark Duration (sec)",
                "Total Output Tokens (tokens)")) {
            assertThat(theirLabels).as("the fixture's own label").contains(label);
            assertThat(csv).as(label).anyMatch(l -> l.startsWith(label + ","));
        }
        assertThat(csv).anyMatch(l -> l.equals("Time to First Token (ms),200.00,100.00,300.00,102.00,110.00,120.00,150.00,200.00,250.00,"
                + "280.00,290.00,298.00,81.65"));

        final List<String> lines = new String(files.get("peers/aiperf/s/profile_export.jsonl"), StandardCharsets.UTF_8).lines().toList();
        final JsonNode theirOk = JSON.readTree(Files.readAllLines(FIXTURES.resolve("aiperf/profile_export.jsonl")).get(0));
        // the current sample has no failed request: an error's keys are those of the v0.1.1 export's error line
        final JsonNode theirError = JSON.readTree(Files.readAllLines(FIXTURES.resolve("aiperf-v0.1.1/profile_export.jsonl")).get(0));
        assertThat(lines).hasSize(4);
        for (String l : lines) {
            final JsonNode n = JSON.readTree(l);
            assertThat(keys(n)).isEqualTo(keys(theirOk));
            assertThat(keys(n.get("metadata"))).isEqualTo(keys(theirOk.get("metadata")));
            sameTypes(n.get("metadata"), theirOk.get("metadata"), "metadata");
            if (n.get("error").isNull()) {
                assertThat(keys(n.get("metrics"))).isEqualTo(keys(theirOk.get("metrics")));
                n.get("metrics").fields().forEachRemaining(e -> assertThat(keys(e.getValue())).isEqualTo(Set.of("value", "unit")));
                sameTypes(n.get("metrics"), theirOk.get("metrics"), "jsonl");
            } else {
                assertThat(keys(n.get("error"))).isEqualTo(keys(theirError.get("error")));
                assertThat(keys(n.get("metrics"))).isEqualTo(keys(theirError.get("metrics")));
            }
        }
        assertThat(JSON.readTree(lines.get(0)).get("metadata").get("request_start_ns").asLong())
                .isEqualTo(T0.getEpochSecond() * 1_000_000_000L + T0.getNano());
    }

    @Test
    void theGuidellmFileHasGuidellmsSchemaVersion2() throws IOException {
        final Map<String, byte[]> files = PeerFiles.of(report());
        final JsonNode ours = file(files, "peers/guidellm/benchmarks.json");
        final JsonNode theirs = JSON.readTree(FIXTURES.resolve("guidellm-benchmarks.json").toFile());
        assertThat(keys(ours)).isEqualTo(keys(theirs));
        assertThat(ours.get("metadata").get("version").asInt()).isEqualTo(theirs.get("metadata").get("version").asInt()).isEqualTo(2);
        assertThat(keys(ours.get("config"))).isEqualTo(keys(theirs.get("config")));
        final JsonNode b = ours.get("benchmarks").get(0);
        final JsonNode tb = theirs.get("benchmarks").get(0);
        assertThat(keys(b)).isEqualTo(keys(tb));
        assertThat(keys(tb.get("config"))).containsAll(keys(b.get("config")).stream().filter(k -> !k.startsWith("goodput_")).toList());
        assertThat(keys(b.get("scheduler_metrics"))).isEqualTo(keys(tb.get("scheduler_metrics")));
        assertThat(keys(tb.get("scheduler_state"))).containsAll(keys(b.get("scheduler_state")));
        assertThat(keys(b.get("metrics"))).isEqualTo(keys(tb.get("metrics")));
        assertThat(keys(b.get("requests"))).isEqualTo(keys(tb.get("requests")));
        final JsonNode req = b.get("requests").get("successful").get(0);
        final JsonNode treq = tb.get("requests").get("successful").get(0);
        assertThat(keys(treq)).containsAll(keys(req));
        assertThat(keys(treq.get("info"))).containsAll(keys(req.get("info")));
        assertThat(keys(req.get("info").get("timings"))).isEqualTo(keys(treq.get("info").get("timings")));
        sameTypes(req.get("info").get("timings"), treq.get("info").get("timings"), "timings");
        for (Iterator<String> it = tb.get("metrics").fieldNames(); it.hasNext(); ) {
            final String k = it.next();
            if (!tb.get("metrics").get(k).has("successful") || k.equals("request_totals")) {
                assertThat(keys(b.get("metrics").get(k))).as(k).isEqualTo(keys(tb.get("metrics").get(k)));
                continue;
            }
            final JsonNode dist = b.get("metrics").get(k);
            assertThat(keys(dist)).as(k).isEqualTo(Set.of("successful", "incomplete", "errored", "total"));
            for (String status : List.of("successful", "incomplete", "errored", "total")) {
                assertThat(keys(dist.get(status))).as(k + "." + status).isEqualTo(keys(tb.get("metrics").get(k).get(status)));
                assertThat(keys(dist.get(status).get("percentiles"))).isEqualTo(keys(tb.get("metrics").get(k).get(status).get("percentiles")));
                sameTypes(dist.get(status), tb.get("metrics").get(k).get(status), k + "." + status);
            }
        }
        final JsonNode m = b.get("metrics");
        assertThat(m.get("request_totals").get("successful").asInt()).isEqualTo(3);
        assertThat(m.get("request_totals").get("errored").asInt()).isEqualTo(1);
        assertThat(m.get("time_to_first_token_ms").get("successful").get("mean").asDouble()).isCloseTo(200.0, within(1e-6));
        // GuideLLM's percentile is the first value whose cumulative weight reaches p: of 100, 200, 300 the p50 is 200, the p99 300
        assertThat(m.get("time_to_first_token_ms").get("successful").get("percentiles").get("p99").asDouble()).isCloseTo(300.0, within(1e-6));
        // ITL (last - first) / (tokens - 1) = 10, 20, 30 ms, each weighted by 3 gaps
        assertThat(m.get("inter_token_latency_ms").get("successful").get("mean").asDouble()).isCloseTo(20.0, within(1e-6));
        assertThat(m.get("inter_token_latency_ms").get("successful").get("count").asInt()).isEqualTo(9);
        // four iterations of one token each: after the first, 3 per request
        assertThat(m.get("iter_tokens_per_iteration").get("successful").get("count").asInt()).isEqualTo(9);
        assertThat(m.get("output_tokens_per_iteration").get("successful").get("mean").asDouble()).isCloseTo(1.0, within(1e-9));
        // request latency in seconds
        assertThat(m.get("request_latency").get("successful").get("min").asDouble()).isCloseTo(0.131, within(1e-9));
        // GuideLLM recomputes TTFT from the timings on load: first token 100 ms after the actual send
        final JsonNode t = req.get("info").get("timings");
        assertThat((t.get("first_token_iteration").asDouble() - t.get("request_start").asDouble()) * 1000).isCloseTo(100.0, within(1e-3));
        // dispatch lateness as GuideLLM's targeted start delay: three sends 2 ms late, the failed one on time
        assertThat(b.get("scheduler_metrics").get("request_targeted_start_delay_avg").asDouble()).isCloseTo(0.0015, within(1e-9));
        assertThat(req.get("input_metrics").get("total_tokens").asInt()).isEqualTo(100);
    }

    @Test
    void compareReadsEachPeersOwnFile() {
        final PeerResult vllm = PeerResult.read(FIXTURES.resolve("vllm-bench-serve-save-result.json"));
        assertThat(vllm.kind()).isEqualTo(PeerResult.Kind.VLLM);
        assertThat(vllm.summary().get("total").get("latency").get("ttft").get("p99_us").asDouble()).isCloseTo(143325.62107359988, within(1e-6));
        assertThat(vllm.summary().get("total").get("requests").asInt()).isEqualTo(200);
        assertThat(vllm.missing()).contains("goodput req/s", "$ / successful 1M");
        final PeerResult aiperf = PeerResult.read(FIXTURES.resolve("aiperf/profile_export_aiperf.json"));
        assertThat(aiperf.kind()).isEqualTo(PeerResult.Kind.AIPERF);
        assertThat(aiperf.summary().get("total").get("requests").asInt()).isEqualTo(200);
        assertThat(aiperf.summary().get("total").get("latency").get("ttft").get("p99_us").asDouble()).isCloseTo(89090.29500999999, within(1e-6));
        assertThat(aiperf.summary().get("total").get("latency").get("itl").get("p99_us").asDouble()).isCloseTo(66775.81862, within(1e-6));
        final PeerResult old = PeerResult.read(FIXTURES.resolve("aiperf-v0.1.1/profile_export_aiperf.json"));
        assertThat(old.kind()).isEqualTo(PeerResult.Kind.AIPERF);
        assertThat(old.summary().get("total").get("requests").asInt()).isEqualTo(100);
        assertThat(old.summary().get("total").get("latency").get("itl").get("p99_us").asDouble()).isCloseTo(140534.29476, within(1e-6));
        assertThat(old.summary().get("total").get("latency").get("tpot").get("p99_us").asDouble()).isCloseTo(33732.24787406911, within(1e-6));
        final PeerResult guidellm = PeerResult.read(FIXTURES.resolve("guidellm-benchmarks.json"));
        assertThat(guidellm.kind()).isEqualTo(PeerResult.Kind.GUIDELLM);
        final JsonNode gm = JSON.valueToTree(guidellm.summary()).get("total");
        assertThat(gm.get("requests").asInt()).isEqualTo(200);
        assertThat(gm.get("latency").get("ttft").get("p50_us").asDouble()).isCloseTo(55379.86755371094, within(1e-6));
        final PeerResult ip = PeerResult.read(FIXTURES.resolve("inference-perf-summary_lifecycle_metrics.json"));
        assertThat(ip.kind()).isEqualTo(PeerResult.Kind.INFERENCE_PERF);
        assertThat(ip.summary().get("total").get("requests").asInt()).isEqualTo(200);
        // seconds in the file, microseconds in the summary
        assertThat(ip.summary().get("total").get("latency").get("ttft").get("p99_us").asDouble()).isCloseTo(547125.9459998191, within(1e-3));
        assertThat(ip.summary().get("total").get("latency").get("itl").get("p99_us").asDouble()).isCloseTo(149451.7601601501, within(1e-3));
    }

    @Test
    void aScenarioWithNoMeasuredRequestHasNoAiperfFilesAndTheManifestSaysWhy() throws IOException {
        final Report r = report(true);
        final Map<String, byte[]> files = PeerFiles.of(r);
        final Map<String, String> skipped = PeerFiles.skipped(r);
        // AIPerf's own model refuses an export of no request (request_count >= 1): none is written, each one named
        assertThat(skipped).containsOnlyKeys("peers/aiperf/w/profile_export_aiperf.json", "peers/aiperf/w/profile_export_aiperf.csv",
                "peers/aiperf/w/profile_export.jsonl");
        assertThat(skipped.values()).allMatch(why -> why.contains("scenario w has no measured request"));
        assertThat(files).doesNotContainKeys(skipped.keySet().toArray(String[]::new));
        // the measured scenario keeps its AIPerf files, every scenario its vLLM file, the run its GuideLLM file
        assertThat(files).containsKeys("peers/aiperf/s/profile_export_aiperf.json", "peers/vllm/s.json", "peers/vllm/w.json",
                "peers/guidellm/benchmarks.json");
        assertThat(JSON.readTree(files.get("peers/vllm/w.json")).get("completed").asInt()).isZero();
        final JsonNode w = JSON.readTree(files.get("peers/guidellm/benchmarks.json")).get("benchmarks").get(1);
        assertThat(w.get("duration").asDouble()).isZero();
        assertThat(PeerFiles.skipped(report())).isEmpty();
        // the bundle: its manifest names the files left out, and its page gives the scenario no good share, not 0 %
        final Path dir = Files.createTempDirectory("bundle");
        final String page = Files.readString(Bundle.write(dir, r));
        assertThat(JSON.readTree(dir.resolve("manifest.json").toFile()).get("peer_files_skipped").size()).isEqualTo(3);
        assertThat(dir.resolve("peers/aiperf/w")).doesNotExist();
        assertThat(page).containsPattern("<tr data-scenario=\"w\">.*<td data-k=\"good_fraction\">n/a</td>")
                .containsPattern("<tr data-scenario=\"w\">.*<td data-k=\"quality_fraction\">n/a</td>");
    }

    @Test
    void whatGoodputWritesReadsBackThroughCompare() throws IOException {
        final Map<String, byte[]> files = PeerFiles.of(report());
        final Path dir = Files.createTempDirectory("peers");
        for (String f : List.of("peers/vllm/s.json", "peers/aiperf/s/profile_export_aiperf.json", "peers/guidellm/benchmarks.json")) {
            final Path p = dir.resolve(f.replace('/', '_'));
            Files.write(p, files.get(f));
            final PeerResult r = PeerResult.read(p);
            assertThat(r).as(f).isNotNull();
            final JsonNode s = r.summary().get("scenarios").get(0);
            assertThat(s.get("scenario_id").asText()).as(f).isEqualTo("s");
            assertThat(s.get("latency").get("ttft").get("p50_us").asDouble()).as(f).isCloseTo(200_000.0, within(1e-3));
            assertThat(s.get("latency").get("tpot").get("p50_us").asDouble()).as(f).isCloseTo(20_000.0, within(1e-3));
            assertThat(s.get("requests").asInt()).as(f).isEqualTo(4);
        }
    }

    @Test
    void compareTakesAPeersFileAsEitherSideAndSaysWhatItCannotGive() {
        final var c = dev.goodput.report.Comparison.of(FIXTURES.resolve("vllm-bench-serve-save-result.json"),
                FIXTURES.resolve("aiperf-v0.1.1/profile_export_aiperf.json"));
        assertThat(c.rows()).anySatisfy(r -> {
            assertThat(r.figure()).isEqualTo("TTFT p99 ms");
            assertThat(r.a()).isCloseTo(143.32562107359988, within(1e-9));
            assertThat(r.b()).isCloseTo(3833.3894000399996, within(1e-9));
        });
        assertThat(c.notes()).anyMatch(n -> n.startsWith("A cannot give: $ / successful 1M"));
        assertThat(c.notes()).anyMatch(n -> n.startsWith("B is an AIPerf profile export"));
        assertThat(c.text()).contains("NOTE: contracts: neither side records one").doesNotContain("contracts: identical");
    }
}
