package dev.goodput.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

class ProgressTest {

    @Test
    void theWarmSpanIsGivenInUtcToTheMillisecond() {
        final BenchIo.Progress p = new BenchIo.Progress(10, 2, 6, 1, "", 0.8, Instant.parse("2026-12-05T10:45:12.333Z"),
                Instant.parse("2026-12-05T10:45:23.9Z"));
        // a profile's timeline is cut to this span: any other zone or precision cuts it wrong
        assertThat(p.warmSpan()).isEqualTo("10:45:12.333-10:45:23.900 UTC");
    }

    @Test
    void ratesAreRecordsOverSeconds() {
        final BenchIo.Progress p = new BenchIo.Progress(10, 2, 6, 1.5, "", 0.8, Instant.EPOCH, Instant.EPOCH);
        assertThat(p.wholeRate()).isEqualTo(5.0);
        assertThat(p.warmRate()).isEqualTo(4.0);
    }

    @Test
    void aRatePerSecondOnACoreIsTheRateOverTheCoresItsThreadHad() {
        assertThat(BenchIo.perCore(4.0, 0.8)).isEqualTo(5.0);
        // not measured (no /proc, no schedstat) or no time on a core: no figure rather than an infinite one
        assertThat(BenchIo.perCore(4.0, Double.NaN)).isNaN();
        assertThat(BenchIo.perCore(4.0, 0.0)).isNaN();
        assertThat(new BenchIo.Progress(10, 2, 6, 1.5, "", 0.8, Instant.EPOCH, Instant.EPOCH).warmRatePerCore()).isEqualTo(5.0);
        assertThat(new BenchIo.Progress(10, 2, 6, 1.5, "", Double.NaN, Instant.EPOCH, Instant.EPOCH).warmRatePerCore()).isNaN();
    }

    @Test
    void aRawPassSaysHowMuchOfACoreItsThreadHad() {
        final BenchIo.Pass pass = new BenchIo.Pass(100, 8.0, 0.8, 0.05);
        assertThat(pass.ratePerCore()).isEqualTo(10.0);
        assertThat(pass.coreShare()).isEqualTo(" (its thread on a core 0.80 of the time, waiting for one 0.05)");
        // where the kernel keeps no schedstat, neither figure
        final BenchIo.Pass unmeasured = new BenchIo.Pass(100, 8.0, Double.NaN, Double.NaN);
        assertThat(unmeasured.ratePerCore()).isNaN();
        assertThat(unmeasured.coreShare()).isEmpty();
    }
}
