package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.capture.LlamaServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's main job against a real engine, as a user runs it: {@code goodput demo --target} a
 * llama-server (2 slots) under the engine's contract (prompts sized by its own /tokenize), twice as
 * many concurrent requests as slots with a stall timeout below the wait for a slot. The bundle must
 * set the engine's account beside the client's, and the engine's queue beside TTFT.
 */
class LlamaServerDemoIT {

    @Test
    void theDemoAgainstARealEngineReconcilesWithTheEnginesOwnAccount(@TempDir Path dir) throws Exception {
        try (LlamaServer server = LlamaServer.start(2, 2048)) {
            final Path matrix = dir.resolve("matrix.yaml");
            Files.writeString(matrix, "prompt_tokens: [128]\noutput_tokens: [32]\nconcurrency: [4]\ncache: [cold]\nduration_s: 12\n");
            final Path contract = EngineContract.write(dir);
            try (ChildCli demo = ChildCli.start(ChildCli.SHORT_WINDOWS, "demo", "--fresh", "--data-dir", dir.resolve("data").toString(),
                    "--report-dir", dir.resolve("reports").toString(), "--contract", contract.toString(), "--matrix", matrix.toString(),
                    "--prices", "../config/prices.yaml", "--target", server.v1(), "--stall-timeout", "1s",
                    "--server-metrics-every", "1s", "--duration", "20s")) {
                assertThat(demo.waitForExit()).as(demo.output()).isZero();
                final String out = demo.output();
                assertThat(out).contains("prompts: sized in server tokens (chat content)")
                        .contains("server metrics: " + server.base() + "/metrics every 1.0 s");
                final Path bundle = Files.list(dir.resolve("reports")).findFirst().orElseThrow();
                final List<Map<String, String>> engine = Csv.read(bundle.resolve("engine.csv"));
                final Map<String, String> first = engine.get(0);
                assertThat(Long.parseLong(first.get("with_engine_timings"))).isPositive()
                        .isEqualTo(Long.parseLong(first.get("output_tokens_equal")));
                assertThat(Double.parseDouble(first.get("client_tpot_over_engine_decode_per_gap"))).isCloseTo(1.0, within(0.05));
                assertThat(first.get("prompts_off_over_5pct")).isEqualTo("0");
                final int template = Integer.parseInt(first.get("chat_template_tokens"));
                // every request: no timeout though each waited for a slot longer than the stall timeout
                final ObjectMapper json = new ObjectMapper();
                final List<JsonNode> requests = Files.readAllLines(bundle.resolve("requests.jsonl")).stream().filter(l -> !l.isBlank())
                        .map(l -> {
                            try {
                                return json.readTree(l);
                            } catch (java.io.IOException e) {
                                throw new IllegalStateException(e);
                            }
                        }).toList();
                assertThat(requests).isNotEmpty().allSatisfy(r -> {
                    assertThat(r.get("status").asText()).as(r.toString()).isEqualTo("OK");
                    assertThat(r.get("prompt_tokens").asInt()).isCloseTo(r.get("intended_prompt_tokens").asInt() + template, within(1));
                    assertThat(r.get("engine_predicted_n").asInt()).isEqualTo(r.get("output_tokens").asInt());
                });
                final List<Map<String, String>> timeline = Csv.read(bundle.resolve("engine-timeline.csv"));
                assertThat(timeline.stream().map(t -> t.get("queued_max")).filter(q -> !q.isEmpty())
                        .mapToDouble(Double::parseDouble).max().orElse(0)).as("the engine's own queue").isPositive();
                assertThat(Files.readString(bundle.resolve("index.html"))).contains("The engine's own account")
                        .contains("The engine's queue beside the client's TTFT");
                assertThat(timeline.stream().map(t -> t.get("engine")).collect(Collectors.toSet())).containsExactly("llamacpp");
            }
        }
    }

    /**
     * A model that stops on its end-of-sequence token, as every trained model does: the engine counts
     * the EOS token in {@code completion_tokens} and sends no text for it. (A grammar holds the random
     * model to a fixed answer; once it is complete only EOS may follow.) TPOT must span that last
     * decode step: the client's decode time over the engine's per gap is 1, and no answer of three or
     * more tokens reads a TPOT of 0.
     */
    @Test
    void aModelThatStopsOnEndOfSequenceIsTimedToItsLastDecodeStep(@TempDir Path dir) throws Exception {
        try (LlamaServer server = LlamaServer.stoppingOnEos(2, 2048, "root ::= \" Paris is a big old city\"")) {
            final Path matrix = dir.resolve("matrix.yaml");
            Files.writeString(matrix, "prompt_tokens: [64]\noutput_tokens: [32]\nconcurrency: [2]\ncache: [cold]\nduration_s: 10\n");
            final Path contract = EngineContract.write(dir);
            try (ChildCli demo = ChildCli.start(ChildCli.SHORT_WINDOWS, "demo", "--fresh", "--data-dir", dir.resolve("data").toString(),
                    "--report-dir", dir.resolve("reports").toString(), "--contract", contract.toString(), "--matrix", matrix.toString(),
                    "--prices", "../config/prices.yaml", "--target", server.v1(), "--duration", "20s")) {
                assertThat(demo.waitForExit()).as(demo.output()).isZero();
                final Path bundle = Files.list(dir.resolve("reports")).findFirst().orElseThrow();
                final ObjectMapper json = new ObjectMapper();
                final List<JsonNode> ok = new java.util.ArrayList<>();
                for (String l : Files.readAllLines(bundle.resolve("requests.jsonl"))) {
                    if (!l.isBlank() && json.readTree(l).path("status").asText().equals("OK") && !json.readTree(l).path("warmup").asBoolean()) {
                        ok.add(json.readTree(l));
                    }
                }
                assertThat(ok).hasSizeGreaterThan(5).allSatisfy(r -> {
                    // the engine stopped on EOS: it counted one token more than it sent text for
                    assertThat(r.get("output_tokens").asInt()).as(r.toString()).isGreaterThanOrEqualTo(3)
                            .isEqualTo(r.get("content_chunks").asInt() + 1).isEqualTo(r.get("engine_predicted_n").asInt());
                    // the finish chunk ends generation; it may come in the same socket read as the last content chunk, and
                    // every event of one read shares that read's time (a loaded machine reads two events at once)
                    assertThat(r.get("last_choice_time_us").asLong()).as(r.toString())
                            .isGreaterThanOrEqualTo(r.get("last_chunk_time_us").asLong());
                    assertThat(r.get("tpot_us").asDouble()).as(r.toString()).isPositive();
                });
                final Map<String, String> first = Csv.read(bundle.resolve("engine.csv")).get(0);
                System.out.printf(java.util.Locale.ROOT, "LlamaServerDemoIT: a model stopping on EOS, %d answers of %d-%d tokens, none with"
                        + " TPOT 0; client TPOT / engine decode per gap: %s%n", ok.size(),
                        ok.stream().mapToInt(r -> r.get("output_tokens").asInt()).min().orElse(0),
                        ok.stream().mapToInt(r -> r.get("output_tokens").asInt()).max().orElse(0),
                        first.get("client_tpot_over_engine_decode_per_gap"));
                assertThat(Double.parseDouble(first.get("client_tpot_over_engine_decode_per_gap"))).as(first.toString())
                        .isCloseTo(1.0, within(0.05));
            }
        }
    }

    /** The bundle's CSV files: a header row, then rows (no quoted commas in the columns read here). */
    private static final class Csv {
        static List<Map<String, String>> read(Path file) throws java.io.IOException {
            final List<String> lines = Files.readAllLines(file);
            final String[] header = lines.get(0).split(",", -1);
            return lines.subList(1, lines.size()).stream().filter(l -> !l.isBlank()).map(l -> {
                final String[] cells = l.split(",", -1);
                final Map<String, String> m = new java.util.LinkedHashMap<>();
                for (int i = 0; i < header.length; i++) {
                    m.put(header[i], i < cells.length ? cells[i] : "");
                }
                return m;
            }).collect(Collectors.toList());
        }
    }
}
