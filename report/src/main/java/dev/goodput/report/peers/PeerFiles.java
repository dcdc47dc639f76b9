package dev.goodput.report.peers;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RunSummary;
import dev.goodput.definitions.Conventions;
import dev.goodput.report.Report;

/**
 * The run in its peers' result formats, as files of the report bundle under {@code peers/}: per
 * scenario a vLLM {@code bench serve --save-result --save-detailed} JSON and an AIPerf profile
 * export (JSON, CSV, JSONL), and one GuideLLM {@code benchmarks.json} holding every scenario.
 * Each is computed from the run's raw request and token events under that tool's definitions.
 */
public final class PeerFiles {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String GUIDELLM = "peers/guidellm/benchmarks.json";

    private PeerFiles() {
    }

    /** The files by their path inside the bundle. */
    public static Map<String, byte[]> of(Report r) throws JsonProcessingException {
        final Map<String, byte[]> files = new LinkedHashMap<>();
        final Map<String, RunSummary> scenarios = new LinkedHashMap<>();
        r.run().runs().forEach(s -> scenarios.putIfAbsent(s.getScenarioId(), s));
        final Map<String, List<Exchange>> vllm = Exchange.byScenario(r.run(), Conventions.Tool.VLLM);
        final Map<String, List<Exchange>> aiperf = Exchange.byScenario(r.run(), Conventions.Tool.AIPERF);
        final String command = r.provenance().commands().values().stream().findFirst().orElse("goodput");
        final Map<String, String> skipped = skipped(r);
        for (String id : r.run().scenarioIds()) {
            final RunSummary s = scenarios.get(id);
            final String name = fileName(id);
            final String endpoint = endpoint(vllm.get(id));
            files.put("peers/vllm/" + name + ".json", JSON.writeValueAsBytes(VllmResult.of(r.run().runId(), s, r.contract(), endpoint,
                    vllm.get(id))));
            final List<String> aiperfPaths = aiperfFiles(name);
            if (skipped.containsKey(aiperfPaths.get(0))) {
                continue;
            }
            final AiperfExport.Files a = AiperfExport.of(r.run().runId(), s, r.contract(), s.getTargetId(), endpoint, command, aiperf.get(id));
            files.put(aiperfPaths.get(0), JSON.writeValueAsBytes(a.json()));
            files.put(aiperfPaths.get(1), utf8(a.csv()));
            files.put(aiperfPaths.get(2), utf8(a.jsonl()));
        }
        final List<RunSummary> ordered = r.run().scenarioIds().stream().map(scenarios::get).toList();
        if (skipped.containsKey(GUIDELLM)) {
            return files;
        }
        files.put(GUIDELLM, JSON.writeValueAsBytes(GuidellmReport.of(r.run().runId(), ordered, aiperf, r.contract(),
                ordered.isEmpty() ? null : ordered.get(0).getTargetId(), ordered.isEmpty() ? "chat" : endpoint(vllm.get(ordered.get(0).getScenarioId())),
                r.provenance().goodputVersion())));
        return files;
    }

    /**
     * The peers' files left out of this bundle, with why. GuideLLM's benchmarks state a load strategy
     * (a rate or a concurrency), which traffic nobody scheduled (observed through spans) does not have.
     * AIPerf's export is of measured requests (its configured request count is at least 1, and its
     * records file holds one line per request): a scenario that measured none (stopped within its
     * warm-up) has no AIPerf files; its vLLM file says 0 completed, as vLLM's would.
     */
    public static Map<String, String> skipped(Report r) {
        final Map<String, String> out = new LinkedHashMap<>();
        final boolean unscheduled = r.run().runs().stream()
                .anyMatch(s -> (s.getRateRps() == null || s.getRateRps() <= 0) && s.getConcurrency() == null);
        if (unscheduled) {
            out.put(GUIDELLM, "GuideLLM's benchmarks state a load strategy (a rate or a"
                    + " concurrency); a scenario of this run had none (traffic observed, not scheduled)");
        }
        for (String id : Exchange.unmeasured(r.run())) {
            final String why = "AIPerf's export is of measured requests (its request_count is at least 1); scenario " + id
                    + " has no measured request (as when its run stopped within the warm-up)";
            aiperfFiles(fileName(id)).forEach(f -> out.put(f, why));
        }
        return out;
    }

    /** A scenario's AIPerf files: the JSON, the CSV and the per-request records. */
    private static List<String> aiperfFiles(String name) {
        final String dir = "peers/aiperf/" + name + "/";
        return List.of(dir + "profile_export_aiperf.json", dir + "profile_export_aiperf.csv", dir + "profile_export.jsonl");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A scenario id as a file name: anything but letters, digits, dot, dash and underscore becomes '_'. */
    static String fileName(String scenarioId) {
        return scenarioId.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static String endpoint(List<Exchange> xs) {
        return xs == null ? "chat" : xs.stream().map(Exchange::event).map(RequestEvent::getOperation).filter(o -> o != null)
                .findFirst().map(o -> o.equals("text_completion") ? "completions" : "chat").orElse("chat");
    }
}
