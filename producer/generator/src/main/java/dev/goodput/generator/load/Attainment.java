package dev.goodput.generator.load;

/**
 * A run's measured requests, those within every latency objective and those good (the objectives
 * and the quality floor), as the generator judged them by the same definitions the streams-app
 * applies: what a sweep decides its next point by while the pipeline's final windows are still to
 * come.
 */
public record Attainment(long measured, long withinObjectives, long good) {

    /** Two runs' requests together (a sweep point run more than once). */
    public Attainment plus(Attainment o) {
        return new Attainment(measured + o.measured, withinObjectives + o.withinObjectives, good + o.good);
    }
}
