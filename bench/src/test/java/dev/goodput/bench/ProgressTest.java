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
    }
}
