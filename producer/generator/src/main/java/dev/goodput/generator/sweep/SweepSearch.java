package dev.goodput.generator.sweep;

import java.util.List;

/**
 * The search for an operating point: the highest load (requests per second, or concurrent
 * requests) whose attainment meets the target, to a stated resolution. Pure: the points tried so far
 * in, the next load to try out. From the start load it doubles while points meet the target (up to
 * the cap), then bisects between the highest load that met it and the lowest that did not, until the
 * two are within the resolution of each other; when the start load already fails it halves until a
 * point meets the target or the load is a 64th of the start. MLPerf LoadGen's Server scenario asks the
 * same question (the highest rate meeting its latency constraints); GuideLLM's sweep and vLLM's SLA
 * search walk the same curve.
 */
public final class SweepSearch {

    /** One point tried: its load and whether its attainment met the target. */
    public record Point(double load, boolean meets) {
    }

    /** The answer: the highest load that met the target and the lowest that did not (NaN where none did). */
    public record Answer(double highestMeeting, double lowestFailing) {
        public boolean found() {
            return !Double.isNaN(highestMeeting);
        }
    }

    private SweepSearch() {
    }

    /**
     * The next load to try after {@code points}, or NaN when the search is done.
     *
     * @param resolution the largest relative gap (0.1: 10 %) left between the answer and the next load up
     * @param whole      loads are whole numbers (concurrency)
     */
    public static double next(List<Point> points, double start, double cap, double resolution, boolean whole) {
        if (points.isEmpty()) {
            return round(Math.min(start, cap), whole);
        }
        final Answer a = answer(points);
        if (Double.isNaN(a.lowestFailing())) {
            // everything so far met the target: double, up to the cap
            final double up = round(Math.min(cap, a.highestMeeting() * 2), whole);
            return up <= a.highestMeeting() ? Double.NaN : up;
        }
        if (!a.found()) {
            // the first load already failed: halve, down to a 64th of the start
            final double down = round(a.lowestFailing() / 2, whole);
            return down < start / 64 || down <= 0 || down >= a.lowestFailing() ? Double.NaN : down;
        }
        if ((a.lowestFailing() - a.highestMeeting()) / a.highestMeeting() <= resolution) {
            return Double.NaN;
        }
        final double mid = round((a.highestMeeting() + a.lowestFailing()) / 2, whole);
        return mid <= a.highestMeeting() || mid >= a.lowestFailing() ? Double.NaN : mid;
    }

    /**
     * The highest load that met the target below the lowest that did not: a point that met it above
     * a failing one (a noisy curve) does not count, as MLPerf's search keeps the highest passing rate
     * under the first failure.
     */
    public static Answer answer(List<Point> points) {
        double lowestFailing = Double.NaN;
        for (Point p : points) {
            if (!p.meets() && (Double.isNaN(lowestFailing) || p.load() < lowestFailing)) {
                lowestFailing = p.load();
            }
        }
        double highestMeeting = Double.NaN;
        for (Point p : points) {
            if (p.meets() && (Double.isNaN(lowestFailing) || p.load() < lowestFailing)
                    && (Double.isNaN(highestMeeting) || p.load() > highestMeeting)) {
                highestMeeting = p.load();
            }
        }
        return new Answer(highestMeeting, lowestFailing);
    }

    private static double round(double load, boolean whole) {
        return whole ? Math.floor(load) : Math.round(load * 100) / 100.0;
    }
}
