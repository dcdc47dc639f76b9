package dev.goodput.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ServingSummaryTest {

    @Test
    void theBlockHasVllmsLinesWidthsAndFigures() {
        final Histogram ttft = Histograms.request();
        for (long v : new long[] {10_000, 20_000, 30_000, 40_000}) {
            ttft.recordValue(v);
        }
        final Map<String, String> additions = new LinkedHashMap<>();
        additions.put("Good requests (%)", "75.00");
        final List<String> lines = new ServingSummary("Serving Benchmark Result", 4, 1, 2.0, 400, 100,
                Map.of("ttft", ttft), additions).lines();
        // values at HdrHistogram's precision: 3 significant digits, a bucket's highest equivalent value
        // vLLM's header: the title centred with '=' to 50 characters
        assertThat(lines.get(0)).isEqualTo("============ Serving Benchmark Result ============");
        assertThat(lines).contains(
                "Successful requests:                     4",
                "Failed requests:                         1",
                "Benchmark duration (s):                  2.00",
                "Total input tokens:                      400",
                "Total generated tokens:                  100",
                "Request throughput (req/s):              2.00",
                "Output token throughput (tok/s):         50.00",
                "Total Token throughput (tok/s):          250.00",
                "---------------Time to First Token----------------",
                "Mean TTFT (ms):                          25.01",
                "Median TTFT (ms):                        20.02",
                "P99 TTFT (ms):                           40.03",
                "Good requests (%):                       75.00");
        assertThat(lines).noneMatch(l -> l.contains("TPOT"));
        assertThat(lines.get(lines.size() - 1)).isEqualTo("=".repeat(50));
    }

    @Test
    void emptyHistogramsAndZeroDurationSayNotApplicable() {
        final List<String> lines = new ServingSummary("Serving Benchmark Result", 0, 3, 0, 0, 0,
                Map.of("ttft", Histograms.request()), Map.of()).lines();
        assertThat(lines).contains("Mean TTFT (ms):                          n/a");
    }
}
