package dev.goodput.report.peers;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import dev.goodput.avro.RequestEvent;
import dev.goodput.definitions.Conventions;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/** vLLM's peak tokens per second and peak concurrency, in memory that follows the records, not their time span. */
class VllmPeaksTest {

    /** A request sent at {@code sendS}, first token after 100 ms, then {@code gaps} tokens 90 ms apart. */
    private static Exchange request(double sendS, int gaps) {
        final RequestEvent e = RequestEvent.newBuilder(SampleRecords.request())
                .setActualSendTimeUs(Instant.ofEpochSecond(0).plusNanos((long) (sendS * 1e9))).build();
        final long[] g = new long[gaps];
        Arrays.fill(g, 90_000);
        return new Exchange(e, new long[0], new int[0], new Conventions.Measures(100_000, 100_000 + 90_000.0 * gaps, 90_000, g,
                gaps + 1));
    }

    @Test
    void peaksAsVllmCountsThem() {
        // two requests in the same second, a third later: 2 at once, and each one's 10 tokens (0.10 to 0.91 s
        // after its send) in the first second: 20
        final double[] p = VllmResult.peaks(List.of(request(1000, 9), request(1000.05, 9), request(1010, 0)));
        assertThat(p[1]).isEqualTo(2);
        assertThat(p[0]).isEqualTo(20);
    }

    /** A send in 1970 beside one in 2100 (records the streams-app refused): no OutOfMemoryError, the same peaks. */
    @Test
    void recordsCenturiesApartCostNoMoreThanTheirNumber() {
        final double century = 130L * 365 * 86_400;
        final double[] p = VllmResult.peaks(List.of(request(0, 9), request(0.05, 9), request(century, 3)));
        assertThat(p[1]).isEqualTo(2);
        assertThat(p[0]).isEqualTo(20);
    }
}
