package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScheduleTest {

    private static double[] gaps(Schedule s, int n) throws InterruptedException {
        final double[] g = new double[n];
        long prev = s.next();
        for (int i = 0; i < n; i++) {
            final long t = s.next();
            g[i] = (t - prev) / 1e6;
            prev = t;
        }
        return g;
    }

    private static double mean(double[] x) {
        double s = 0;
        for (double v : x) {
            s += v;
        }
        return s / x.length;
    }

    private static double cv(double[] x) {
        final double m = mean(x);
        double s = 0;
        for (double v : x) {
            s += (v - m) * (v - m);
        }
        return Math.sqrt(s / x.length) / m;
    }

    @Test
    void poissonHasTheRateAndExponentialGaps() throws InterruptedException {
        final double[] g = gaps(Schedule.poisson(0, 100, 0, 7), 100_000);
        assertThat(mean(g)).isCloseTo(0.01, within(0.0003));
        assertThat(cv(g)).isCloseTo(1.0, within(0.03));
    }

    @Test
    void gammaBurstinessSetsTheSpread() throws InterruptedException {
        final double[] bursty = gaps(Schedule.gamma(0, 100, 0.25, 0, 7), 100_000);
        assertThat(mean(bursty)).isCloseTo(0.01, within(0.0004));
        // shape k has coefficient of variation 1/sqrt(k)
        assertThat(cv(bursty)).isCloseTo(2.0, within(0.1));
        assertThat(cv(gaps(Schedule.gamma(0, 100, 4, 0, 7), 100_000))).isCloseTo(0.5, within(0.03));
    }

    @Test
    void constantIsEven() throws InterruptedException {
        final Schedule s = Schedule.constant(1_000, 40, 0);
        assertThat(s.next()).isEqualTo(1_000);
        assertThat(s.next()).isEqualTo(26_000);
        assertThat(s.next()).isEqualTo(51_000);
    }

    @Test
    void rampUpStartsSlowAndReachesTheRate() throws InterruptedException {
        final Schedule s = Schedule.constant(0, 100, 10);
        final long first = s.next();
        final long second = s.next();
        assertThat(second - first).isGreaterThan(100_000);
        long t = second;
        for (int i = 0; i < 3000; i++) {
            t = s.next();
        }
        final long gap = s.next() - t;
        assertThat(gap).isEqualTo(10_000);
    }

    @Test
    void closedLoopReusesFinishedSlots() throws InterruptedException {
        final Schedule s = Schedule.closedLoop(5, 2);
        assertThat(s.next()).isEqualTo(5);
        assertThat(s.next()).isEqualTo(5);
        s.completed(900);
        assertThat(s.next()).isEqualTo(900);
    }

    @Test
    void traceReplaysOffsets(@TempDir Path dir) throws Exception {
        final Path f = dir.resolve("t.txt");
        Files.writeString(f, "# offsets\n0.5\n0\n1.25\n");
        final Schedule s = Schedule.trace(1_000_000, Trace.read(f, null, 1));
        assertThat(s.next()).isEqualTo(1_000_000);
        assertThat(s.next()).isEqualTo(1_500_000);
        assertThat(s.next()).isEqualTo(2_250_000);
        assertThat(s.next()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void scenarioIdsRoundTrip() {
        assertThat(Scenario.parse("p128-o64-r10-cold").id()).isEqualTo("p128-o64-r10-cold");
        assertThat(Scenario.parse("p512-o128-c32-warm").concurrency()).isEqualTo(32);
        assertThat(Scenario.parse("p1-o1-r0.5-warm").rateRps()).isEqualTo(0.5);
    }
}
