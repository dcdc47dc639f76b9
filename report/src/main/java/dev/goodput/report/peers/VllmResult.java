package dev.goodput.report.peers;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.avro.RunSummary;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Conventions;
import dev.goodput.definitions.Micros;

/**
 * A scenario as {@code vllm bench serve --save-result --save-detailed} writes it (vLLM's
 * {@code vllm/benchmarks/serve.py}): the same keys, units (seconds per request, milliseconds in the
 * statistics) and statistics (numpy mean, population std, linear percentiles), under vLLM's
 * definitions (see {@link Conventions}), so vLLM's own plotters and scripts read it. Keys vLLM
 * takes from {@code --metadata KEY=VALUE} carry what vLLM has no field for ({@code goodput_*}).
 */
public final class VllmResult {

    /** The percentiles written for every metric (vLLM's {@code --metric-percentiles 50,90,95,99}). */
    static final double[] PERCENTILES = {50, 90, 95, 99};

    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);

    private VllmResult() {
    }

    /** The result file of one scenario from its measured requests under vLLM's convention. */
    static Map<String, Object> of(String runId, RunSummary scenario, Contract contract, String endpoint, List<Exchange> xs) {
        final double duration = Exchange.durationS(xs);
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("date", DATE.format(scenario.getEndedUs()));
        final String backend = "completions".equals(endpoint) ? "openai" : "openai-chat";
        m.put("endpoint_type", backend);
        m.put("backend", backend);
        m.put("label", null);
        m.put("model_id", contract.modelName());
        m.put("tokenizer_id", contract.tokenizerName());
        m.put("num_prompts", xs.size());
        m.put("goodput_run_id", runId);
        m.put("goodput_scenario_id", scenario.getScenarioId());
        m.put("goodput_contract_id", contract.id());
        m.put("goodput_definitions", "vLLM bench serve's: clock from the actual send, TTFT to the first event with a choice; "
                + "Goodput's own figures (from the intended send) are in summary.json");
        final boolean open = scenario.getRateRps() != null && scenario.getRateRps() > 0;
        m.put("request_rate", open ? scenario.getRateRps() : "inf");
        m.put("burstiness", contract.arrival().burstiness() != null ? contract.arrival().burstiness()
                : "poisson".equals(contract.arrival().process()) ? 1.0 : null);
        m.put("max_concurrency", scenario.getConcurrency());

        final List<Object> inputLens = new ArrayList<>();
        final List<Object> outputLens = new ArrayList<>();
        final List<Object> ttfts = new ArrayList<>();
        final List<Object> itls = new ArrayList<>();
        final List<Object> latencies = new ArrayList<>();
        final List<Object> startTimes = new ArrayList<>();
        final List<Object> queueTimes = new ArrayList<>();
        final List<Object> texts = new ArrayList<>();
        final List<Object> errors = new ArrayList<>();
        final List<Double> ttftMs = new ArrayList<>();
        final List<Double> tpotMs = new ArrayList<>();
        final List<Double> itlMs = new ArrayList<>();
        final List<Double> e2elMs = new ArrayList<>();
        long completed = 0;
        long totalInput = 0;
        long totalOutput = 0;
        long good = 0;
        for (Exchange x : xs) {
            final Conventions.Measures v = x.measures();
            inputLens.add(x.event().getPromptTokens());
            outputLens.add(x.ok() ? v.outputTokens() : 0);
            ttfts.add(x.ok() ? v.ttftUs() / 1e6 : 0.0);
            final List<Double> gaps = new ArrayList<>();
            if (x.ok()) {
                for (long g : v.gapsUs()) {
                    gaps.add(g / 1e6);
                    itlMs.add(g / 1e3);
                }
            }
            itls.add(gaps);
            latencies.add(x.ok() ? v.e2eUs() / 1e6 : 0.0);
            startTimes.add(x.actualSendUs() / 1e6);
            queueTimes.add((x.actualSendUs() - Micros.of(x.event().getIntendedSendTimeUs())) / 1e6);
            // Goodput never stores prompt or completion text
            texts.add("");
            errors.add(x.error());
            if (x.ok()) {
                completed++;
                totalInput += x.event().getPromptTokens();
                totalOutput += v.outputTokens();
                ttftMs.add(v.ttftUs() / 1e3);
                if (!Double.isNaN(v.tpotUs())) {
                    tpotMs.add(v.tpotUs() / 1e3);
                }
                e2elMs.add(v.e2eUs() / 1e3);
                if (Conventions.good(Conventions.Tool.VLLM, v, contract.objectives(), true)) {
                    good++;
                }
            }
        }
        m.put("duration", duration);
        m.put("completed", completed);
        m.put("failed", xs.size() - completed);
        m.put("total_input_tokens", totalInput);
        m.put("total_output_tokens", totalOutput);
        m.put("request_throughput", rate(completed, duration));
        m.put("request_goodput", hasObjectives(contract.objectives()) ? rate(good, duration) : null);
        m.put("output_throughput", rate(totalOutput, duration));
        m.put("total_token_throughput", rate(totalInput + totalOutput, duration));
        m.put("input_lens", inputLens);
        m.put("output_lens", outputLens);
        m.put("ttfts", ttfts);
        m.put("itls", itls);
        m.put("latencies", latencies);
        m.put("start_times", startTimes);
        m.put("queue_times", queueTimes);
        m.put("generated_texts", texts);
        m.put("errors", errors);
        final double[] peaks = peaks(xs);
        m.put("max_output_tokens_per_s", peaks[0]);
        m.put("max_concurrent_requests", (long) peaks[1]);
        m.put("rtfx", 0.0);
        stats(m, "ttft", ttftMs);
        stats(m, "tpot", tpotMs);
        stats(m, "itl", itlMs);
        stats(m, "e2el", e2elMs);
        return m;
    }

    static boolean hasObjectives(Contract.Objectives o) {
        return o.ttftUs().isPresent() || o.tpotUs().isPresent() || o.e2eUs().isPresent();
    }

    private static double rate(long n, double seconds) {
        return seconds <= 0 ? 0 : n / seconds;
    }

    /** vLLM's {@code np.mean(x or 0)}: an empty list gives 0, as it does for std and the percentiles. */
    private static void stats(Map<String, Object> m, String metric, List<Double> values) {
        final double[] a = Numpy.sorted(values);
        m.put("mean_" + metric + "_ms", a.length == 0 ? 0.0 : Numpy.mean(a));
        m.put("median_" + metric + "_ms", a.length == 0 ? 0.0 : Numpy.percentile(a, 50));
        m.put("std_" + metric + "_ms", a.length == 0 ? 0.0 : Numpy.std(a));
        for (double p : PERCENTILES) {
            m.put("p" + (int) p + "_" + metric + "_ms", a.length == 0 ? 0.0 : Numpy.percentile(a, p));
        }
    }

    /**
     * vLLM's peak output tokens per second and peak concurrent requests: one-second buckets from the
     * first successful start; every token event (first token, then each ITL step) counts one in its
     * bucket, and a request counts in every bucket from its start's to its end's. The buckets are
     * sparse, and concurrency is swept over the requests' edges: memory and time follow the number of
     * requests and tokens, never the span between the first and last (a record dated 1970 beside one
     * dated 2100 once meant an array of three billion buckets and an OutOfMemoryError).
     */
    static double[] peaks(List<Exchange> xs) {
        final List<Exchange> ok = xs.stream().filter(Exchange::ok).toList();
        if (ok.isEmpty()) {
            return new double[] {0, 0};
        }
        final double min = ok.stream().mapToLong(Exchange::actualSendUs).min().orElseThrow() / 1e6;
        final Map<Long, Integer> tokens = new HashMap<>();
        final TreeMap<Long, Integer> edges = new TreeMap<>();
        for (Exchange x : ok) {
            final double start = x.actualSendUs() / 1e6;
            double t = start + x.measures().ttftUs() / 1e6;
            tokens.merge((long) (t - min), 1, Integer::sum);
            for (long g : x.measures().gapsUs()) {
                t += g / 1e6;
                tokens.merge((long) (t - min), 1, Integer::sum);
            }
            edges.merge((long) (start - min), 1, Integer::sum);
            edges.merge((long) (start + x.measures().e2eUs() / 1e6 - min) + 1, -1, Integer::sum);
        }
        double peakConcurrent = 0;
        int running = 0;
        for (int change : edges.values()) {
            running += change;
            peakConcurrent = Math.max(peakConcurrent, running);
        }
        final double peakTokens = tokens.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        return new double[] {peakTokens, peakConcurrent};
    }
}
