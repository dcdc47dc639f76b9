package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RunSummary;
import dev.goodput.generator.load.Matrix;
import dev.goodput.report.ChunkArrivals;
import dev.goodput.report.RunRecords;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's closing account: a gap between what the generators measured and the verdicts is said first. */
class DemoAccountTest {

    private static String account(long requests, long warmup, int verdicts, Map<String, Long> dlq) {
        return account(requests, warmup, (int) (requests - warmup), verdicts, dlq, Map.of());
    }

    /** A run whose generators counted {@code requests - warmup} and of whose request events {@code accepted} passed the door. */
    private static String account(long requests, long warmup, int accepted, int verdicts, Map<String, Long> dlq,
                                  Map<String, Long> door) {
        final RunSummary run = RunSummary.newBuilder(SampleRecords.runSummary()).setRequests(requests).setWarmupRequests(warmup).build();
        final RunRecords r = new RunRecords("run", null, List.of(run),
                Collections.nCopies(accepted, RequestEvent.newBuilder(SampleRecords.request()).setWarmup(false).build()),
                Collections.nCopies(verdicts, SampleRecords.verdict()), List.of(), List.of(), List.of(), Map.of(), Map.of(),
                new ChunkArrivals(), List.of(), door);
        final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        DemoAccount.print(new PrintStream(buf, true, StandardCharsets.UTF_8), r, dlq);
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aGapAndTheDlqAreSaidWithReasons() {
        final Map<String, Long> dlq = new TreeMap<>(Map.of("late", 3L, "from_the_future", 1L));
        final String out = account(10, 2, 5, dlq);
        assertThat(out.lines().findFirst().orElseThrow())
                .isEqualTo("WARNING: the run has 8 measured requests and the results hold 5 verdicts: 3 missing");
        assertThat(out).contains("Accounted: 8 measured requests, 5 verdicts; 4 records refused to llm.dlq during the run "
                + "(from_the_future 1, late 3)");
    }

    /** Raw events of absurd dates: refused at the door, so neither measured nor missing, and listed by reason. */
    @Test
    void eventsTheDoorChecksRefuseAreListedNotMeasured() {
        final String out = account(10, 2, 6, 6, Map.of("duration_out_of_range", 2L), Map.of("duration_out_of_range", 2L));
        assertThat(out).doesNotContain("WARNING").contains("Accounted: 6 measured requests, 6 verdicts")
                .contains("The report left out 2 raw events of the run that the door checks refuse, as the streams-app does "
                        + "(duration_out_of_range 2)")
                .contains("The generators' run summaries count 8 measured requests; 6 request events of the run passed the door checks");
    }

    @Test
    void aCompleteRunHasNoWarning() {
        final String out = account(10, 2, 8, Map.of());
        assertThat(out).doesNotContain("WARNING").contains("Accounted: 8 measured requests, 8 verdicts; 0 records refused");
    }

    /** A --duration that ends the run before the matrix's last scenarios: they are named, not lost. */
    @Test
    void scenariosThatNeverStartedAreNamed(@TempDir Path dir) throws Exception {
        final Path m = dir.resolve("m.yaml");
        Files.writeString(m, "prompt_tokens: [64, 512]\noutput_tokens: [64]\nrates_rps: [10]\ncache: [cold]\n"
                + "duration_s: 15\n");
        final RunSummary ran = RunSummary.newBuilder(SampleRecords.runSummary()).setScenarioId("p64-o64-r10-cold").build();
        final RunRecords r = new RunRecords("run", null, List.of(ran), List.of(), List.of(), List.of(), List.of(), List.of(),
                Map.of(), Map.of(), new ChunkArrivals(), List.of(), Map.of());
        assertThat(DemoAccount.notRun(Matrix.load(m), r)).containsExactly("p512-o64-r10-cold");
    }
}
