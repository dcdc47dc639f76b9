package dev.goodput.assembly.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;

import org.junit.jupiter.api.Test;

class LogClockTest {

    private static final long S = 1_000_000;
    private static final long W = 10 * S;
    private static final long G = 5 * S;

    @Test
    void anEventIsLateOnceItsRecordsLogTimeReachesItsWindowsEndPlusTheGrace() {
        // window [100 s, 110 s), grace 5 s: on time up to a log time just before 115 s
        assertThat(LogClock.late(104 * S, 114_999_999, W, G)).isFalse();
        assertThat(LogClock.late(104 * S, 115 * S, W, G)).isTrue();
        // the window's last microsecond has the same deadline as its first
        assertThat(LogClock.late(110 * S - 1, 114_999_999, W, G)).isFalse();
        assertThat(LogClock.late(100 * S, 115 * S, W, G)).isTrue();
        // an event before 1970 is judged by the same rule (floor division)
        assertThat(LogClock.windowEnd(-1, W)).isZero();
    }

    /** The clock remembers the window of the event before; every answer is still the definition's. */
    @Test
    void lateAnswersAsTheDefinitionWhateverTheOrderOfEvents() {
        final long window = 10_000_000;
        final long grace = 5_000_000;
        final LogClock clock = new LogClock(window, grace, LogClock.NONE, LogClock.NONE);
        final Random r = new Random(7);
        long event = 1_700_000_000_000_000L;
        for (int i = 0; i < 100_000; i++) {
            // runs of events in one window, jumps across windows both ways, and window edges exactly
            event += switch (r.nextInt(4)) {
                case 0 -> r.nextInt(20_000);
                case 1 -> -r.nextInt(3) * window;
                case 2 -> window - Math.floorMod(event, window) - r.nextInt(2);
                default -> (long) r.nextInt(3) * window + r.nextInt(20_000);
            };
            final long log = event + r.nextInt(4) * 5_000_000L - 5_000_000L + r.nextInt(3) - 1;
            assertThat(clock.late(event, log)).as("event %d at log time %d", event, log)
                    .isEqualTo(LogClock.late(event, log, window, grace));
        }
    }

    @Test
    void aRecordsLogTimeIsItsTopicsRunningMaximumSoAClockNeverGoesBack() {
        final LogClock c = new LogClock(W, G, LogClock.NONE, LogClock.NONE);
        assertThat(c.token(2_000)).isEqualTo(2 * S);
        assertThat(c.token(1_000)).as("an append time that went back").isEqualTo(2 * S);
        assertThat(c.request(500)).isEqualTo(S / 2);
        assertThat(c.tokenLogUs()).isEqualTo(2 * S);
        assertThat(c.requestLogUs()).isEqualTo(S / 2);
    }

    @Test
    void theWatermarkIsTheSlowerClockHeldBackByRequestsInFlight() {
        final LogClock c = new LogClock(W, G, LogClock.NONE, LogClock.NONE);
        assertThat(c.watermark(Long.MAX_VALUE)).isEqualTo(LogClock.NONE);
        c.token(50_000);
        assertThat(c.watermark(Long.MAX_VALUE)).as("until both topics have a record").isEqualTo(LogClock.NONE);
        c.request(40_000);
        assertThat(c.watermark(Long.MAX_VALUE)).isEqualTo(40 * S);
        assertThat(c.watermark(12 * S)).as("a request streaming since 12 s").isEqualTo(12 * S);
        c.request(70_000);
        assertThat(c.watermark(Long.MAX_VALUE)).isEqualTo(50 * S);
    }

    @Test
    void aWindowClosesWhenTheWatermarkReachesItsEndPlusTheGrace() {
        assertThat(LogClock.closes(100 * S, W, G, 115 * S - 1)).isFalse();
        assertThat(LogClock.closes(100 * S, W, G, 115 * S)).isTrue();
    }

    @Test
    void aWindowOfNothingOrANegativeGraceIsRefused() {
        assertThatThrownBy(() -> new LogClock(0, G, LogClock.NONE, LogClock.NONE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LogClock(W, -1, LogClock.NONE, LogClock.NONE)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void windowsCloseOnTheSlowestUpstreamOnlyOnceEveryUpstreamHasReported() {
        final WindowCloser c = new WindowCloser(2, W, G);
        assertThat(c.observe(0, 200 * S)).isFalse();
        assertThat(c.closed(0)).as("upstream 1 has not reported").isFalse();
        assertThat(c.observe(1, 116 * S)).isTrue();
        assertThat(c.closed(100 * S)).isTrue();
        assertThat(c.closed(110 * S)).isFalse();
        assertThat(c.observe(1, 100 * S)).as("a watermark never goes back").isFalse();
        assertThat(c.closedThroughUs()).isEqualTo(116 * S);
    }
}
