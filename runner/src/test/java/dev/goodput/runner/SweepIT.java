package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The buyer's question in one command (#62): {@code demo --sweep} against the simulator made a small
 * server (4 sequences a batch, so its capacity is some tens of requests a second) searches the rate
 * for the highest one whose requests meet every latency objective 99 % of the time. Its answer meets
 * the target, the lowest failing point does not, the two are within the resolution, and the answer
 * comes with its cost per successful 1M tokens from the pipeline's windows and the sink's prices.
 */
class SweepIT {

    private static final Pattern ROW = Pattern.compile("^  (p\\S+)\\s+([0-9.]+)\\s+(\\d+)\\s+([0-9.]+) %\\s+\\S+\\s+\\S+(?: \\S+)*?\\s+(meets|fails)(.*)$");
    private static final Pattern ANSWER = Pattern.compile("Operating point: ([0-9.]+) \\((\\S+)\\) meets the target with ([0-9.]+) %; ([0-9.]+) does not;"
            + " cost per successful 1M output tokens there: \\$([0-9.]+)");

    record Row(String scenario, double load, long measured, double attainmentPct, boolean meets, String rest) {
    }

    @Test
    void theSweepFindsTheHighestRateMeetingTheTargetAndItsCost(@TempDir Path dir) throws Exception {
        final Path matrix = dir.resolve("matrix.yaml");
        Files.writeString(matrix, "prompt_tokens: [32]\noutput_tokens: [16]\nrates_rps: [4]\ncache: [cold]\nduration_s: 8\n");
        try (ChildCli demo = ChildCli.start("demo", "--fresh", "--data-dir", dir.resolve("data").toString(), "--report-dir",
                dir.resolve("reports").toString(), "--contract", "../config/contract.yaml", "--prices", "../config/prices.yaml",
                "--matrix", matrix.toString(), "--sweep", "--sweep-target", "slo:0.99", "--sweep-resolution", "0.25",
                "--sweep-max", "256", "--sim-max-batch", "4", "--duration", "600s")) {
            assertThat(demo.waitForExit()).as(demo.output()).isZero();
            final String out = demo.output();
            final List<Row> rows = new ArrayList<>();
            for (String line : out.split("\n")) {
                final Matcher m = ROW.matcher(line);
                if (m.matches()) {
                    rows.add(new Row(m.group(1), Double.parseDouble(m.group(2)), Long.parseLong(m.group(3)),
                            Double.parseDouble(m.group(4)), m.group(5).equals("meets"), m.group(6)));
                }
            }
            assertThat(rows).as(out).hasSizeGreaterThanOrEqualTo(3);
            final Matcher a = ANSWER.matcher(out);
            assertThat(a.find()).as(out).isTrue();
            final double answer = Double.parseDouble(a.group(1));
            final double failing = Double.parseDouble(a.group(4));
            final Row at = rows.stream().filter(r -> r.load() == answer).findFirst().orElseThrow();
            final Row next = rows.stream().filter(r -> r.load() == failing).findFirst().orElseThrow();
            assertThat(at.meets()).isTrue();
            assertThat(at.attainmentPct()).isGreaterThanOrEqualTo(99.0);
            assertThat(next.meets()).isFalse();
            assertThat(failing).isGreaterThan(answer);
            assertThat((failing - answer) / answer).as("within the resolution").isLessThanOrEqualTo(0.25);
            // no point between the answer and the failing one, and every point below the answer that was tried met it
            assertThat(rows).filteredOn(r -> r.load() > answer && r.load() < failing).isEmpty();
            assertThat(rows).filteredOn(r -> r.load() < answer).allMatch(Row::meets);
            assertThat(Double.parseDouble(a.group(5))).as("cost per successful 1M at the answer").isPositive();
            // a point ended early says why
            assertThat(rows).filteredOn(r -> r.rest().contains("ended early")).allSatisfy(r -> {
                assertThat(r.meets()).isFalse();
                assertThat(r.rest()).contains("over-saturated: requests in flight rose from");
            });
            assertThat(out).contains("Accounted: ").doesNotContain("Scenarios never run");

            // the bundle keeps the sweep, and compare reads two sweeps' operating points from it
            final Path bundle;
            try (var runs = Files.list(dir.resolve("reports"))) {
                bundle = runs.filter(Files::isDirectory).findFirst().orElseThrow();
            }
            final dev.goodput.report.SweepResult kept = dev.goodput.report.SweepResult.read(bundle);
            assertThat(kept).as("sweep.json in " + bundle).isNotNull();
            assertThat(kept.answer().highestMeeting()).isEqualTo(answer);
            assertThat(kept.answer().lowestFailing()).isEqualTo(failing);
            assertThat(kept.points()).hasSize(rows.size());
            try (ChildCli compare = ChildCli.start("compare", bundle.toString(), bundle.toString())) {
                assertThat(compare.waitForExit()).as(compare.output()).isZero();
                assertThat(compare.output()).contains("Operating points (target: 99.0 % of requests within every latency objective)")
                        .contains("A and B cost the same per successful 1M output tokens at their operating points: $" + a.group(5));
            }
        }
    }
}
