package dev.goodput.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * What a sweep found, as its bundle keeps it ({@code sweep.json}): the target, every point (load,
 * attainment, whether it met the target, why it ended early, and from the pipeline's final windows
 * its goodput and cost per successful 1M), and the answer. {@code goodput compare} of two bundles
 * that hold one compares their operating points ({@link SweepComparison}).
 *
 * @param target    the attainment target in words
 * @param loadUnit  {@code req/s} (open loop) or {@code concurrent} (closed loop)
 * @param answer    the operating point, null when no point met the target
 */
public record SweepResult(String target, String loadUnit, List<Point> points, Answer answer) {

    /** The file a bundle keeps it in. */
    public static final String FILE = "sweep.json";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /**
     * One point of the sweep.
     *
     * @param attainment            share of its measured requests that met the target's condition
     * @param endedEarly            why it was ended early (its queue grew without bound), else null
     * @param goodputRps            from the pipeline's final windows; null without one
     * @param costPerSuccessfulMUsd from the sink's prices; null when unpriced or nothing was good
     */
    public record Point(String scenarioId, double load, long measured, double attainment, boolean meets, String endedEarly,
                       Double goodputRps, Double costPerSuccessfulMUsd) {
    }

    /**
     * The answer: the highest load meeting the target, the lowest failing it (null when none up to
     * the cap failed), and the figures at the answer.
     */
    public record Answer(double highestMeeting, Double lowestFailing, String scenarioId, double attainment, Double goodputRps,
                         Double costPerSuccessfulMUsd) {
    }

    /** Writes it into a bundle folder. */
    public void write(Path bundle) {
        try {
            Files.createDirectories(bundle);
            JSON.writeValue(bundle.resolve(FILE).toFile(), this);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + bundle.resolve(FILE) + ": " + e.getMessage(), e);
        }
    }

    /** The sweep a bundle folder holds, or null when it holds none (a run that was not a sweep). */
    public static SweepResult read(Path bundle) {
        // a bundle folder, or its summary.json; a peer's result file is no sweep
        final Path f = Files.isDirectory(bundle) ? bundle.resolve(FILE)
                : "summary.json".equals(String.valueOf(bundle.getFileName())) ? bundle.resolveSibling(FILE) : null;
        if (f == null || !Files.isRegularFile(f)) {
            return null;
        }
        try {
            return JSON.readValue(f.toFile(), SweepResult.class);
        } catch (IOException e) {
            throw new IllegalArgumentException(f + " is not a sweep result: " + e.getMessage(), e);
        }
    }
}
