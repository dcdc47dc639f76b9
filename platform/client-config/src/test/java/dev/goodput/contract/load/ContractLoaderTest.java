package dev.goodput.contract.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.goodput.contract.Contract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

class ContractLoaderTest {

    /** The shipped contract, relative to this module. */
    static final Path SHIPPED = Path.of("../../config/contract.yaml");

    @Test
    void theShippedSpansContractSaysItsTrafficWasObservedServerSide() {
        final Contract spans = ContractLoader.load(Path.of("../../config/contract-spans.yaml"));
        assertThat(spans.arrival().serverSide()).isTrue();
        assertThat(spans.arrival().rateRps()).isNull();
        assertThat(ContractLoader.load(SHIPPED).arrival().serverSide()).isFalse();
        assertThat(spans.id()).isNotEqualTo(ContractLoader.load(SHIPPED).id());
    }

    @Test
    void shippedContractLoadsAndItsCorpusMatches() {
        final Contract c = ContractLoader.load(SHIPPED);
        assertThat(c.id()).matches("[0-9a-f]{64}");
        assertThat(c.hardware().priceKey()).isEqualTo("example-cloud/h100-sxm");
        assertThat(c.objectives().ttftUs()).contains(500_000L);
        assertThat(c.objectives().tpotUs()).contains(50_000L);
        assertThat(ContractLoader.verifyCorpus(c, SHIPPED.getParent())).exists();
        // all fourteen fields are part of the canonical form
        assertThat(c.canonical()).hasSize(14);
    }

    @Test
    void idIsStableUnderKeyReorderingAndFormatting() throws IOException {
        final Map<String, Object> tree = load();
        final String reference = ContractLoader.parse("a", dump(tree)).id();
        final Map<String, Object> reversed = reverse(tree);
        final String reorderedText = dump(reversed);
        assertThat(reorderedText).isNotEqualTo(dump(tree));
        assertThat(ContractLoader.parse("b", reorderedText).id()).isEqualTo(reference);
        // flow style, comments, 1.0 written as 1.00
        final String flow = new Yaml().dumpAs(tree, null, DumperOptions.FlowStyle.FLOW)
                .replace("top_p: 1.0", "top_p: 1.00");
        assertThat(flow).contains("top_p: 1.00");
        assertThat(ContractLoader.parse("c", "# a comment\n" + flow).id()).isEqualTo(reference);
    }

    @Test
    void everyFieldChangesTheId() throws IOException {
        final Map<String, Object> tree = load();
        final String reference = ContractLoader.parse("ref", dump(tree)).id();
        final List<List<String>> leaves = new ArrayList<>();
        collectLeaves(tree, new ArrayList<>(), leaves);
        assertThat(leaves).hasSizeGreaterThan(30);
        for (List<String> path : leaves) {
            final Map<String, Object> copy = load();
            mutate(copy, path);
            final String id = ContractLoader.parse(String.join(".", path), dump(copy)).id();
            assertThat(id).as("changing %s", String.join(".", path)).isNotEqualTo(reference);
        }
    }

    @Test
    void missingExtraAndMistypedFieldsAreNamedByPath() throws IOException {
        final Map<String, Object> tree = load();
        sub(tree, "hardware").remove("gpu_count");
        sub(tree, "decoding").put("temprature", 0.5);
        sub(tree, "quality").put("floor", "high");
        tree.put("precision", "fp64");
        assertThatThrownBy(() -> ContractLoader.parse("bad.yaml", dump(tree)))
                .isInstanceOfSatisfying(ContractException.class, e -> assertThat(e.problems()).containsExactlyInAnyOrder(
                        "hardware.gpu_count: missing (expected a whole number from 1 to 1000000)",
                        "decoding.temprature: unknown field (expected fields: temperature, top_p, top_k, seed, ignore_eos)",
                        "quality.floor: expected a number from 0 to 1, got \"high\" (a string)",
                        "precision: expected one of [fp32, bf16, fp16, fp8, int8, int4], got \"fp64\" (a string)"))
                .hasMessageContaining("bad.yaml");
    }

    @Test
    void crossFieldRulesAreChecked() throws IOException {
        final Map<String, Object> tree = load();
        sub(tree, "concurrency_pattern").put("arrival", "closed_loop");
        assertThatThrownBy(() -> ContractLoader.parse("x", dump(tree))).isInstanceOfSatisfying(ContractException.class,
                e -> assertThat(e.problems()).containsExactly(
                        "concurrency_pattern.concurrency: missing (arrival closed_loop needs a concurrency)"));
    }

    @Test
    void duplicateKeysAndBrokenYamlAreRefused() {
        assertThatThrownBy(() -> ContractLoader.parse("dup", "precision: bf16\nprecision: fp16\n"))
                .isInstanceOf(ContractException.class).hasMessageContaining("not valid YAML");
        assertThatThrownBy(() -> ContractLoader.parse("list", "- a\n- b\n"))
                .isInstanceOf(ContractException.class).hasMessageContaining("expected a map");
    }

    @Test
    void changedCorpusIsRefused(@TempDir Path dir) throws IOException {
        final Contract c = ContractLoader.load(SHIPPED);
        Files.createDirectories(dir.resolve("corpus"));
        Files.writeString(dir.resolve(c.corpus().path()), "{\"id\":\"x\",\"prompt\":\"changed\",\"expected\":\"y\"}\n");
        assertThatThrownBy(() -> ContractLoader.verifyCorpus(c, dir)).isInstanceOf(ContractException.class)
                .hasMessageContaining("prompt_corpus.sha256");
    }

    @Test
    void loadAllKeysContractsByIdAndDefaultsToTheShippedOne() {
        final Contract shipped = ContractLoader.load(SHIPPED);
        assertThat(ContractLoader.loadAll(List.of(SHIPPED, SHIPPED))).containsOnlyKeys(shipped.id());
        assertThatThrownBy(() -> ContractLoader.loadAll(List.of(Path.of("nope.yaml"))))
                .isInstanceOf(ContractException.class).hasMessageContaining("nope.yaml");
    }

    @Test
    void objectivesFromMillisecondsAreInclusiveMicroseconds() {
        final Contract.Objectives o = Contract.Objectives.ofMillis(200.0, 0.5, null);
        assertThat(o.ttftUs()).contains(200_000L);
        assertThat(o.tpotUs()).contains(500L);
        assertThat(o.e2eUs()).isEqualTo(Optional.empty());
    }

    static Map<String, Object> load() throws IOException {
        return new Yaml().load(Files.readString(SHIPPED));
    }

    static String dump(Map<String, Object> tree) {
        return new Yaml().dump(tree);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> sub(Map<String, Object> tree, String key) {
        return (Map<String, Object>) tree.get(key);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> reverse(Map<String, Object> m) {
        final List<String> keys = new ArrayList<>(m.keySet());
        Collections.reverse(keys);
        final Map<String, Object> out = new LinkedHashMap<>();
        for (String k : keys) {
            final Object v = m.get(k);
            out.put(k, v instanceof Map ? reverse((Map<String, Object>) v) : v);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void collectLeaves(Map<String, Object> m, List<String> prefix, List<List<String>> out) {
        for (Map.Entry<String, Object> e : m.entrySet()) {
            final List<String> p = new ArrayList<>(prefix);
            p.add(e.getKey());
            if (e.getValue() instanceof Map) {
                collectLeaves((Map<String, Object>) e.getValue(), p, out);
            } else {
                out.add(p);
            }
        }
    }

    /** Changes one leaf to another valid value. */
    @SuppressWarnings("unchecked")
    private static void mutate(Map<String, Object> tree, List<String> path) {
        Map<String, Object> m = tree;
        for (String k : path.subList(0, path.size() - 1)) {
            m = (Map<String, Object>) m.get(k);
        }
        final String key = path.get(path.size() - 1);
        final Object v = m.get(key);
        final Map<String, Object> alternatives = Map.of(
                "precision", "fp16", "cache_state", "warm", "scheduler", "static", "arrival", "constant",
                "metric", "exact_match", "sha256", "0".repeat(64), "floor", 0.5, "top_p", 0.9, "burstiness", 0.5);
        if (alternatives.containsKey(key)) {
            m.put(key, alternatives.get(key));
        } else if (v == null) {
            m.put(key, 3);
        } else if (v instanceof Boolean b) {
            m.put(key, !b);
        } else if (v instanceof Integer i) {
            m.put(key, i + 1);
        } else if (v instanceof Double d) {
            m.put(key, new BigDecimal(d.toString()).add(BigDecimal.ONE).doubleValue());
        } else {
            m.put(key, v + "x");
        }
    }
}
