package dev.goodput.generator.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The search against targets of known capacity: its answer meets the target, the next point up does not, within the resolution. */
class SweepSearchTest {

    /** Searches a target that meets the objectives up to {@code capacity}; the points tried. */
    private static List<SweepSearch.Point> search(double capacity, double start, double cap, double resolution, boolean whole) {
        final List<SweepSearch.Point> points = new ArrayList<>();
        for (double load = SweepSearch.next(points, start, cap, resolution, whole); !Double.isNaN(load);
             load = SweepSearch.next(points, start, cap, resolution, whole)) {
            final double l = load;
            assertThat(points).as("a load tried twice").noneMatch(p -> p.load() == l);
            points.add(new SweepSearch.Point(load, load <= capacity));
            assertThat(points).as("points for capacity %s", capacity).hasSizeLessThan(40);
        }
        return points;
    }

    @Test
    void theAnswerMeetsTheTargetAndTheNextPointUpDoesNotWithinTheResolution() {
        for (double capacity = 0.2; capacity < 2_000; capacity *= 1.07) {
            for (double start : new double[] {1, 10, 100}) {
                final SweepSearch.Answer a = SweepSearch.answer(search(capacity, start, 1_000, 0.1, false));
                if (capacity >= 1_000) {
                    assertThat(a.highestMeeting()).as("capped").isEqualTo(1_000);
                    assertThat(a.lowestFailing()).isNaN();
                    continue;
                }
                if (capacity < start / 64) {
                    assertThat(a.found()).isFalse();
                    continue;
                }
                assertThat(a.highestMeeting()).as("capacity %s from %s", capacity, start).isLessThanOrEqualTo(capacity);
                assertThat(a.lowestFailing()).isGreaterThan(capacity);
                // within the resolution, allowing for loads rounded to hundredths
                assertThat((a.lowestFailing() - a.highestMeeting()) / a.highestMeeting()).isLessThanOrEqualTo(0.1 + 0.011 / a.highestMeeting());
            }
        }
    }

    @Test
    void concurrencyIsSearchedInWholeNumbersToTheNextOneUp() {
        for (int capacity = 1; capacity <= 300; capacity++) {
            final SweepSearch.Answer a = SweepSearch.answer(search(capacity, 4, 512, 0.0, true));
            assertThat(a.highestMeeting()).as("capacity %d", capacity).isEqualTo(capacity);
            assertThat(a.lowestFailing()).isEqualTo(capacity + 1.0);
        }
    }

    @Test
    void aPassAboveAFailureDoesNotCount() {
        final SweepSearch.Answer a = SweepSearch.answer(List.of(new SweepSearch.Point(10, true), new SweepSearch.Point(20, false),
                new SweepSearch.Point(30, true)));
        assertThat(a.highestMeeting()).isEqualTo(10);
        assertThat(a.lowestFailing()).isEqualTo(20);
    }

    @Test
    void aQueueThatKeepsGrowingEndsThePointAndOneThatHoldsDoesNot() {
        final AtomicLong now = new AtomicLong();
        final AtomicInteger inFlight = new AtomicInteger(10);
        final SaturationWatch growing = new SaturationWatch(inFlight::get, now::get, 0);
        String said = null;
        for (int s = 0; s < 30 && said == null; s++) {
            now.set(s * 1_000_000_000L);
            inFlight.set(10 + 4 * s);
            said = growing.check();
        }
        assertThat(said).contains("over-saturated").contains("from 10 to");
        now.addAndGet(5_000_000_000L);
        inFlight.set(0);
        assertThat(growing.check()).as("it stays said").isEqualTo(said);

        // a queue that rises and falls around a level holds
        final SaturationWatch steady = new SaturationWatch(inFlight::get, now::get, now.get());
        final long t0 = now.get();
        for (int s = 0; s < 120; s++) {
            now.set(t0 + s * 1_000_000_000L);
            inFlight.set(20 + (s % 7));
            assertThat(steady.check()).as("second %d", s).isNull();
        }
    }
}
