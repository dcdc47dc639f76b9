package dev.goodput.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A benchmark's runs as rows of a CSV file: appended, never under another benchmark's columns. */
class BenchDataTest {

    @Test
    void runsAreAppendedUnderOneHeaderAndAnotherHeaderIsRefused(@TempDir Path dir) throws Exception {
        final Path f = dir.resolve("sub").resolve("bench-x.csv");
        final BenchData d = BenchData.of(f.toString(), "bench-x");
        assertThat(d.append(List.of("phase", "rate"), List.of("100 streams, fast", 1_234_567.891))).isEqualTo(f);
        d.append(List.of("phase", "rate"), List.of("say \"hi\"", Double.NaN));
        final List<String> lines = Files.readAllLines(f);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).isEqualTo("date,commit,phase,rate");
        assertThat(lines.get(1)).matches("\\d{4}-\\d{2}-\\d{2},[^,]+,\"100 streams, fast\",1234570");
        assertThat(lines.get(2)).endsWith(",\"say \"\"hi\"\"\",");
        assertThatThrownBy(() -> d.append(List.of("phase"), List.of("x"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("give another file with --record");
        assertThat(BenchData.of("none", "bench-x").append(List.of("a"), List.of(1))).isNull();
        assertThat(BenchData.cell(0.5)).isEqualTo("0.5");
        assertThat(BenchData.cell(41.5)).isEqualTo("41.5");
        assertThat(BenchData.cell(3L)).isEqualTo("3");
    }
}
