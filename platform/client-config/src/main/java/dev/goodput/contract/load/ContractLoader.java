package dev.goodput.contract.load;

import static dev.goodput.contract.load.Rule.bool;
import static dev.goodput.contract.load.Rule.integer;
import static dev.goodput.contract.load.Rule.matching;
import static dev.goodput.contract.load.Rule.number;
import static dev.goodput.contract.load.Rule.object;
import static dev.goodput.contract.load.Rule.oneOf;
import static dev.goodput.contract.load.Rule.optional;
import static dev.goodput.contract.load.Rule.string;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.goodput.config.ConfigException;
import dev.goodput.config.Home;
import dev.goodput.config.Yamls;
import dev.goodput.contract.Contract;

/**
 * Loads and validates {@code contract.yaml} and computes its id. Every field is checked; all
 * problems are reported at once, each with its field path and what is expected.
 */
public final class ContractLoader {

    static final Rule SPEC = object(
            "model", object("name", string(), "revision", string()),
            "tokenizer", object("name", string(), "revision", string()),
            "precision", oneOf("fp32", "bf16", "fp16", "fp8", "int8", "int4"),
            "quantization", string(),
            "prompt_corpus", object("path", string(), "sha256", matching("[0-9a-f]{64}", "64 lowercase hex digits")),
            "output_cap_tokens", integer(1, 10_000_000),
            "decoding", object(
                    "temperature", number(0, 10),
                    "top_p", number(0, 1),
                    "top_k", optional(integer(-1, 1_000_000)),
                    "seed", optional(integer(Long.MIN_VALUE, Long.MAX_VALUE)),
                    "ignore_eos", bool()),
            "hardware", object(
                    "gpu_type", string(),
                    "gpu_count", integer(1, 1_000_000),
                    "price_key", string(),
                    "peak_output_tokens_per_s", optional(number(0, 1e12))),
            "runtime", object("name", string(), "version", string()),
            "batching_policy", object(
                    "scheduler", oneOf("continuous", "static", "dynamic"),
                    "max_num_seqs", optional(integer(1, 1_000_000)),
                    "max_num_batched_tokens", optional(integer(1, 1_000_000_000))),
            "cache_state", oneOf("cold", "warm"),
            "concurrency_pattern", object(
                    "arrival", oneOf("poisson", "gamma", "constant", "closed_loop", "trace", Contract.Arrival.OBSERVED_SERVER_SIDE),
                    "rate_rps", optional(number(0, 1e9)),
                    "burstiness", optional(number(0, 1e6)),
                    "concurrency", optional(integer(1, 10_000_000)),
                    "warmup_s", number(0, 1e6)),
            "quality", object(
                    "metric", oneOf("exact_match", "contains", "regex", "valid_json"),
                    "floor", number(0, 1)),
            "latency_objectives", object(
                    "ttft_ms", optional(number(0, 1e9)),
                    "tpot_ms", optional(number(0, 1e9)),
                    "e2e_ms", optional(number(0, 1e9))));

    private static final ObjectMapper CANONICAL = new ObjectMapper()
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
            .configure(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN, true);

    private ContractLoader() {
    }

    /** Loads a contract file. */
    public static Contract load(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return parse(file.toString(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            throw new ContractException(file.toString(), List.of("file not found (pass --contract <path>)"));
        } catch (IOException e) {
            throw new ContractException(file.toString(), List.of("cannot read: " + e.getMessage()));
        }
    }

    /** Parses contract YAML text; {@code source} names it in errors. */
    public static Contract parse(String source, String yamlText) {
        final Object tree;
        try {
            tree = Yamls.parse(yamlText, source, "contract");
        } catch (ConfigException e) {
            throw new ContractException(source, e.problems());
        }
        final List<String> problems = Rule.newProblems();
        @SuppressWarnings("unchecked")
        final Map<String, Object> canonical = (Map<String, Object>) SPEC.check("", tree, problems);
        if (problems.isEmpty()) {
            crossChecks(canonical, problems);
        }
        if (!problems.isEmpty()) {
            throw new ContractException(source, problems);
        }
        return build(canonical);
    }

    /** Loads several contract files (config/contract.yaml when none are given), by contract id. */
    public static Map<String, Contract> loadAll(List<Path> files) {
        final Map<String, Contract> byId = new LinkedHashMap<>();
        for (Path p : files.isEmpty() ? List.of(Home.config("contract.yaml")) : files) {
            final Contract c = load(p);
            byId.put(c.id(), c);
        }
        return byId;
    }

    /** Checks that the corpus file (relative paths resolve against {@code baseDir}) has the contract's sha256. */
    public static Path verifyCorpus(Contract contract, Path baseDir) {
        final Path corpus = baseDir.resolve(contract.corpus().path()).normalize();
        final String actual;
        try {
            actual = sha256(Files.readAllBytes(corpus));
        } catch (IOException e) {
            throw new ContractException("prompt corpus", List.of("prompt_corpus.path: cannot read " + corpus
                    + " (" + e.getMessage() + ")"));
        }
        if (!actual.equals(contract.corpus().sha256())) {
            throw new ContractException("prompt corpus", List.of("prompt_corpus.sha256: the file " + corpus
                    + " has sha256 " + actual + ", the contract says " + contract.corpus().sha256()
                    + " (a changed corpus is a new contract: update the hash on purpose)"));
        }
        return corpus;
    }

    /** The canonical JSON text of a validated tree: sorted keys, plain numbers, no spaces. */
    static String canonicalJson(Map<String, Object> canonical) {
        try {
            return CANONICAL.writeValueAsString(canonical);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write canonical contract", e);
        }
    }

    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static void crossChecks(Map<String, Object> c, List<String> problems) {
        final Map<String, Object> cp = map(c, "concurrency_pattern");
        final String arrival = (String) cp.get("arrival");
        if (List.of("poisson", "gamma", "constant").contains(arrival) && cp.get("rate_rps") == null) {
            problems.add("concurrency_pattern.rate_rps: missing (arrival " + arrival + " needs a rate in requests/s)");
        }
        if ("gamma".equals(arrival) && cp.get("burstiness") == null) {
            problems.add("concurrency_pattern.burstiness: missing (arrival gamma needs a burstiness factor > 0)");
        }
        if ("closed_loop".equals(arrival) && cp.get("concurrency") == null) {
            problems.add("concurrency_pattern.concurrency: missing (arrival closed_loop needs a concurrency)");
        }
    }

    private static Contract build(Map<String, Object> c) {
        final String json = canonicalJson(c);
        final Map<String, Object> model = map(c, "model");
        final Map<String, Object> corpus = map(c, "prompt_corpus");
        final Map<String, Object> dec = map(c, "decoding");
        final Map<String, Object> hw = map(c, "hardware");
        final Map<String, Object> cp = map(c, "concurrency_pattern");
        final Map<String, Object> q = map(c, "quality");
        final Map<String, Object> lo = map(c, "latency_objectives");
        return new Contract(
                sha256(json.getBytes(StandardCharsets.UTF_8)),
                json,
                c,
                (String) model.get("name"),
                (String) model.get("revision"),
                (String) map(c, "tokenizer").get("name"),
                new Contract.Corpus((String) corpus.get("path"), (String) corpus.get("sha256")),
                num(c.get("output_cap_tokens")).intValueExact(),
                new Contract.Decoding(num(dec.get("temperature")).doubleValue(), num(dec.get("top_p")).doubleValue(),
                        intOrNull(dec.get("top_k")), dec.get("seed") == null ? null : num(dec.get("seed")).longValueExact(),
                        (Boolean) dec.get("ignore_eos")),
                new Contract.Hardware((String) hw.get("gpu_type"), num(hw.get("gpu_count")).intValueExact(),
                        (String) hw.get("price_key"), doubleOrNull(hw.get("peak_output_tokens_per_s"))),
                (String) c.get("cache_state"),
                new Contract.Arrival((String) cp.get("arrival"), doubleOrNull(cp.get("rate_rps")),
                        doubleOrNull(cp.get("burstiness")), intOrNull(cp.get("concurrency")),
                        num(cp.get("warmup_s")).doubleValue()),
                new Contract.Quality((String) q.get("metric"), num(q.get("floor")).doubleValue()),
                Contract.Objectives.ofMillis(doubleOrNull(lo.get("ttft_ms")), doubleOrNull(lo.get("tpot_ms")),
                        doubleOrNull(lo.get("e2e_ms"))));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> m, String key) {
        return (Map<String, Object>) m.get(key);
    }

    private static BigDecimal num(Object o) {
        return (BigDecimal) o;
    }

    private static Integer intOrNull(Object o) {
        return o == null ? null : num(o).intValueExact();
    }

    private static Double doubleOrNull(Object o) {
        return o == null ? null : num(o).doubleValue();
    }
}
