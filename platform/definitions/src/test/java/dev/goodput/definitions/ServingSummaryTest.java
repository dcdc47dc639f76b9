package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ServingSummaryTest {

    private static Histogram of(long... values) {
        final Histogram h = Histograms.request();
        for (long v : values) {
            h.recordValue(v);
        }
        return h;
    }

    private static List<String> stripped(List<String> lines) {
        return lines.stream().map(String::stripTrailing).toList();
    }

    @Test
    void theFiguresComeFromTheDefinitions() {
        final Map<String, String> additions = new LinkedHashMap<>();
        additions.put("Validity", "valid");
        final List<String> lines = stripped(new ServingSummary("Serving Benchmark Result", 4, 1, 3, 2.0, 400, 100,
                Map.of("ttft", of(10_000, 20_000, 30_000, 40_000)), additions).lines());
        // values at HdrHistogram's precision: 3 significant digits, a bucket's highest equivalent value
        assertThat(lines).containsSubsequence(
                "Successful requests:                     4",
                "Failed requests:                         1",
                "Benchmark duration (s):                  2.00",
                "Total input tokens:                      400",
                "Total generated tokens:                  100",
                "Request throughput (req/s):              2.00",
                "Request goodput (req/s):                 1.50",
                "Output token throughput (tok/s):         50.00",
                "Total token throughput (tok/s):          250.00",
                "---------------Time to First Token----------------",
                "Mean TTFT (ms):                          25.01",
                "Median TTFT (ms):                        20.02",
                "P99 TTFT (ms):                           40.03",
                "---------------------Goodput----------------------",
                "Good requests (%):                       60.00",
                "Validity:                                valid",
                "==================================================");
        assertThat(lines).noneMatch(l -> l.contains("TPOT"));
    }

    @Test
    void emptyHistogramsSayNotApplicableAndAZeroDurationGivesNoRate() {
        final List<String> lines = stripped(new ServingSummary("Serving Benchmark Result", 0, 3, 0, 0, 0, 0,
                Map.of("ttft", Histograms.request()), Map.of()).lines());
        assertThat(lines).contains("Mean TTFT (ms):                          n/a", "Request throughput (req/s):              0.00");
    }

    @Test
    void noMeasuredRequestHasNoGoodShare() {
        // a scenario stopped within its warm-up: nothing measured, which is not "none good"
        assertThat(stripped(new ServingSummary("Serving Benchmark Result", 0, 0, 0, 0, 0, 0, Map.of(), Map.of()).lines()))
                .contains("Good requests (%):                       n/a");
        assertThat(stripped(new ServingSummary("Serving Benchmark Result", 0, 3, 0, 0, 0, 0, Map.of(), Map.of()).lines()))
                .contains("Good requests (%):                       0.00");
    }

    /**
     * Against vLLM's own output (a fixture copied from a published {@code vllm bench serve} run):
     * every rule line is vLLM's byte for byte, every label Goodput shares with vLLM is vLLM's, in
     * vLLM's order, with its value at vLLM's column, padded as vLLM pads it.
     */
    @Test
    void theLayoutIsVllmsBenchServeResult() throws IOException {
        final List<String> vllm = new ArrayList<>();
        try (InputStream in = getClass().getResourceAsStream("/peers/vllm-bench-serve-result.txt")) {
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!l.startsWith("#")) {
                    vllm.add(l);
                }
            }
        }
        final List<String> ours = new ServingSummary("Serving Benchmark Result", 250, 0, 200, 836.4, 57229, 52873,
                Map.of("ttft", of(252_000), "tpot", of(37_000), "itl", of(36_000), "e2e", of(7_996_000)),
                Map.of()).lines();
        final List<String> vllmLabels = new ArrayList<>();
        for (String l : vllm) {
            if (l.matches("^[=-].*")) {
                continue;
            }
            vllmLabels.add(l.substring(0, l.indexOf(':') + 1));
            // vLLM: label padded to 40, a space, the value padded to 10
            assertThat(l.length()).as(l).isGreaterThanOrEqualTo(51);
        }
        final List<String> shared = new ArrayList<>();
        boolean goodputSection = false;
        for (String l : ours) {
            if (l.matches("^[=-].*")) {
                goodputSection |= l.contains("Goodput");
                if (!goodputSection || l.startsWith("=")) {
                    assertThat(vllm).as("rule line").contains(l);
                }
                continue;
            }
            assertThat(l.length()).as(l).isGreaterThanOrEqualTo(51);
            assertThat(l.charAt(40)).as(l).isEqualTo(' ');
            assertThat(l.charAt(41)).as(l).isNotEqualTo(' ');
            final String label = l.substring(0, l.indexOf(':') + 1);
            if (vllmLabels.contains(label)) {
                shared.add(label);
            } else {
                // vLLM prints its request goodput only under --goodput; everything else of ours is in the Goodput section
                assertThat(goodputSection || label.equals("Request goodput (req/s):")).as(label).isTrue();
            }
        }
        assertThat(shared).hasSize(20);
        assertThat(vllmLabels).containsSubsequence(shared);
    }
}
