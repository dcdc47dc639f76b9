package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each public trace format read from a small fixture: send offsets, lengths, shared blocks, and the rows left out. */
class TraceTest {

    private static final Path TRACES = Path.of("src/test/resources/traces");

    @Test
    void azureTimestampsBecomeOffsetsFromTheFirstRequestWithTheirLengths() {
        final Trace t = Trace.read(TRACES.resolve("azure-llm-inference.csv"), null, 1);
        assertThat(t.format()).isEqualTo(Trace.Format.AZURE);
        assertThat(t.entries()).hasSize(4);
        assertThat(t.entries().get(0).offsetUs()).isZero();
        // 18:15:50.9951690 - 18:15:46.6805900 = 4.314579 s
        assertThat(t.entries().get(1).offsetUs()).isEqualTo(4_314_579);
        assertThat(t.entries().get(1).inputTokens()).isEqualTo(396);
        assertThat(t.entries().get(1).outputTokens()).isEqualTo(109);
        assertThat(t.entries().get(3).offsetUs()).isEqualTo(6_469_410);
    }

    @Test
    void burstgptLeavesOutFailedRowsAndSaysSo() {
        final Trace t = Trace.read(TRACES.resolve("burstgpt.csv"), null, 1);
        assertThat(t.format()).isEqualTo(Trace.Format.BURSTGPT);
        assertThat(t.entries()).hasSize(3);
        assertThat(t.skipped()).containsExactly("line 3: no response tokens (a failed request in the original trace)");
        assertThat(t.entries().get(1).offsetUs()).isEqualTo(41_000_000);
        assertThat(t.entries().get(1).model()).isEqualTo("GPT-4");
        assertThat(t.entries().get(2).inputTokens()).isEqualTo(1360);
        assertThat(t.entries().get(2).outputTokens()).isEqualTo(243);
        assertThat(t.describe()).contains("3 requests over 42.5 s").contains("1 rows left out");
    }

    @Test
    void mooncakeMillisecondsLengthsAndBlockIdsWithASpeedup() {
        final Trace t = Trace.read(TRACES.resolve("mooncake.jsonl"), null, 2);
        assertThat(t.format()).isEqualTo(Trace.Format.MOONCAKE);
        assertThat(t.entries()).extracting(Trace.Entry::offsetUs).containsExactly(0L, 125_000L, 500_000L);
        assertThat(t.entries().get(1).hashIds()).containsExactly(0, 1, 3);
        assertThat(t.entries().get(1).inputTokens()).isEqualTo(1300);
        assertThat(t.describe()).contains("2 of 8 prompt blocks repeat an earlier request's");
    }

    @Test
    void aBadRowNamesItsLineAndTheExpectedLayout(@TempDir Path dir) throws Exception {
        final Path f = dir.resolve("bad.csv");
        Files.writeString(f, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,374,44\nyesterday,1,2\n");
        assertThatThrownBy(() -> Trace.read(f, null, 1)).hasMessageContaining("line 3: expected TIMESTAMP")
                .hasMessageContaining("yesterday");
        assertThatThrownBy(() -> Trace.read(TRACES.resolve("mooncake.jsonl"), null, 0)).hasMessageContaining("--trace-speedup");
        assertThatThrownBy(() -> Trace.Format.parse("sharegpt")).hasMessageContaining("offsets, azure, burstgpt or mooncake");
    }
}
