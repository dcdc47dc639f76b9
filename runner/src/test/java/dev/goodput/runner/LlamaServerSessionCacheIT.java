package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.capture.LlamaServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefix cache against a real engine (#63): llama-server reuses a slot's longest common prefix.
 * Sessions of three turns, two users on two slots: every turn's prompt holds its history, the
 * cached tokens each request's usage report gives equal the engine's {@code timings.cache_n}, and
 * the run's hit rate is the engine's own counters' over the run. Shared prefixes of 0 % and 90 %
 * of the prompt on one slot: the hit rates differ as stated, and so does TTFT.
 */
class LlamaServerSessionCacheIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path demo(Path dir, LlamaServer server, String matrix) throws Exception {
        Files.writeString(dir.resolve("matrix.yaml"), matrix);
        final Path contract = EngineContract.write(dir);
        try (ChildCli demo = ChildCli.start("demo", "--fresh", "--data-dir", dir.resolve("data").toString(),
                "--report-dir", dir.resolve("reports").toString(), "--contract", contract.toString(),
                "--matrix", dir.resolve("matrix.yaml").toString(), "--prices", "../config/prices.yaml",
                "--target", server.v1(), "--duration", "300s")) {
            assertThat(demo.waitForExit()).as(demo.output()).isZero();
            final Matcher m = Pattern.compile("Report: (\\S+)index\\.html").matcher(demo.output());
            assertThat(m.find()).as(demo.output()).isTrue();
            return Path.of(m.group(1));
        }
    }

    private static List<JsonNode> requests(Path bundle) throws Exception {
        final List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(bundle.resolve("requests.jsonl"))) {
            if (!line.isBlank()) {
                out.add(JSON.readTree(line));
            }
        }
        return out;
    }

    @Test
    void sessionsCarryTheirHistoryAndTheCachedTokensAreTheEnginesOwn(@TempDir Path dir) throws Exception {
        final Path bundle;
        try (LlamaServer server = LlamaServer.start(2, 2048)) {
            bundle = demo(dir, server, "prompt_tokens: [24]\noutput_tokens: [8]\nconcurrency: [2]\ncache: [turns3]\n"
                    + "duration_s: 10\nthink_time_s: 0.2\n");
        }
        final List<JsonNode> all = requests(bundle);
        final List<JsonNode> ok = all.stream().filter(r -> r.path("status").asText().equals("OK")).toList();
        assertThat(ok).hasSizeGreaterThanOrEqualTo(6).allMatch(r -> !r.path("session_id").isNull());
        // every request's cached tokens, from its usage report, equal the engine's own count of it
        for (JsonNode r : ok) {
            assertThat(r.path("cached_prompt_tokens").asInt(-1)).as("%s", r).isEqualTo(r.path("engine_cache_n").asInt(-2));
        }
        // every later turn's prompt holds the turn before it: its prompt and its answer
        final Map<String, List<JsonNode>> sessions = ok.stream().collect(Collectors.groupingBy(r -> r.path("session_id").asText()));
        int later = 0;
        long laterCached = 0;
        long laterPrompt = 0;
        for (List<JsonNode> turns : sessions.values()) {
            turns.sort(Comparator.comparingInt(r -> r.path("turn").asInt()));
            for (int k = 1; k < turns.size(); k++) {
                final JsonNode before = turns.get(k - 1);
                final JsonNode r = turns.get(k);
                if (r.path("turn").asInt() != before.path("turn").asInt() + 1) {
                    continue;
                }
                assertThat(r.path("prompt_tokens").asInt()).as("%s after %s", r, before)
                        .isGreaterThan(before.path("prompt_tokens").asInt() + before.path("output_tokens").asInt() - 2);
                later++;
                laterCached += r.path("cached_prompt_tokens").asLong();
                laterPrompt += r.path("prompt_tokens").asLong();
            }
        }
        assertThat(later).as("turns after a first one").isGreaterThanOrEqualTo(3);
        // the engine kept most of each conversation in its slot: the later turns were served mostly from the cache
        assertThat((double) laterCached / laterPrompt).as("later turns' hit rate").isGreaterThan(0.5);
        // the run's hit rate by the requests' reports is the engine's by its counters over the run
        final JsonNode engine = JSON.readTree(bundle.resolve("summary.json").toFile()).path("engine_cache");
        assertThat(engine.isObject()).as("summary.json engine_cache").isTrue();
        System.out.printf(java.util.Locale.ROOT, "LlamaServerSessionCacheIT: %d ok requests in %d sessions, cached_tokens = cache_n on"
                + " every one; later turns' hit rate %.4f; run hit rate by the requests %.4f, by the engine's counters %.4f%n", ok.size(),
                sessions.size(), (double) laterCached / laterPrompt, engine.path("client_hit_rate").asDouble(),
                engine.path("engine_hit_rate").asDouble());
        assertThat(engine.path("client_hit_rate").asDouble()).isCloseTo(engine.path("engine_hit_rate").asDouble(), within(0.01));
        final JsonNode cache = JSON.readTree(bundle.resolve("summary.json").toFile()).path("scenarios").get(0).path("cache");
        // the scenario's sessions: those of its measured requests, whatever their ending (the run's end abandons some)
        assertThat(cache.path("sessions").asLong()).isEqualTo(all.stream().filter(r -> !r.path("warmup").asBoolean())
                .map(r -> r.path("session_id").asText()).distinct().count());
        assertThat(Files.readString(bundle.resolve("index.html"))).contains("id=\"cache\"", "id=\"engine-cache\"");
    }

    @Test
    void aNinetyPercentSharedPrefixHitsAndIsFasterToTheFirstTokenThanNone(@TempDir Path dir) throws Exception {
        final Path bundle;
        try (LlamaServer server = LlamaServer.start(1, 2048)) {
            bundle = demo(dir, server, "prompt_tokens: [256]\noutput_tokens: [4]\nrates_rps: [2]\ncache: [cold, shared90]\n"
                    + "duration_s: 8\n");
        }
        final JsonNode scenarios = JSON.readTree(bundle.resolve("summary.json").toFile()).path("scenarios");
        JsonNode cold = null;
        JsonNode shared = null;
        for (JsonNode s : scenarios) {
            if (s.path("scenario_id").asText().endsWith("-cold")) {
                cold = s.path("cache");
            } else if (s.path("scenario_id").asText().endsWith("-shared90")) {
                shared = s.path("cache");
            }
        }
        assertThat(cold).as("%s", scenarios).isNotNull();
        assertThat(shared).as("%s", scenarios).isNotNull();
        System.out.printf(java.util.Locale.ROOT, "LlamaServerSessionCacheIT: cold hit rate %.4f, TTFT p50 of misses %d us; shared90 hit"
                + " rate %.4f, TTFT p50 of hits %d us%n", cold.path("hit_rate").asDouble(), cold.path("ttft_p50_miss_us").asLong(),
                shared.path("hit_rate").asDouble(), shared.path("ttft_p50_hit_us").asLong());
        // cold: the chat template's first tokens at most; 90 % shared: most of each prompt (its template and filler)
        assertThat(cold.path("hit_rate").asDouble()).isLessThan(0.2);
        assertThat(shared.path("hit_rate").asDouble()).isGreaterThan(0.75);
        assertThat(shared.path("ttft_p50_hit_us").asLong()).as("TTFT p50 of a hit").isLessThan(cold.path("ttft_p50_miss_us").asLong());
    }
}
