package dev.goodput.producer.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import org.junit.jupiter.api.Test;

class RunStatsTest {

    private static RequestEvent event(int i, long latenessUs, long ttftUs, boolean warmup) {
        final Instant intended = Instant.ofEpochSecond(1_800_000_000L, i * 1_000_000L);
        return RequestEvent.newBuilder().setContractId("c").setRunId("r").setScenarioId("s").setTargetId("t")
                .setGpuType("H100").setGpuCount(1).setRequestId("q" + i).setAttempt(1)
                .setIntendedSendTimeUs(intended).setActualSendTimeUs(intended.plusNanos(latenessUs * 1_000))
                .setFirstChunkTimeUs(intended.plusNanos(ttftUs * 1_000)).setCompletionTimeUs(intended.plusSeconds(1))
                .setPromptTokens(10).setOutputTokens(5).setOutputTokensSource(TokenCountSource.SERVER_USAGE)
                .setContentChunks(5).setStatus(RequestStatus.OK).setWarmup(warmup).build();
    }

    @Test
    void warmUpRequestsAreCountedButKeptOutOfTheLatenessAndTtftPercentiles() {
        final RunStats stats = new RunStats();
        for (int i = 0; i < 50; i++) {
            // a cold JIT and fresh connections: late dispatches and slow first tokens while warming up
            stats.record(event(i, 20_000, 900_000, true));
        }
        assertThat(stats.progress(1.0, 0, 0)).contains("warm-up (not in the percentiles)");
        for (int i = 50; i < 250; i++) {
            stats.record(event(i, 100, 30_000, false));
        }
        assertThat(stats.requests()).isEqualTo(250);
        assertThat(stats.warmup.sum()).isEqualTo(50);
        assertThat(stats.count(RequestStatus.OK)).isEqualTo(250);
        assertThat(stats.lateness().getTotalCount()).isEqualTo(200);
        assertThat(stats.lateness().getMaxValue()).isEqualTo(stats.lateness().highestEquivalentValue(100));
        assertThat(stats.ttft().getTotalCount()).isEqualTo(200);
        assertThat(stats.ttft().getValueAtPercentile(99)).isEqualTo(stats.ttft().highestEquivalentValue(30_000));
        assertThat(stats.progress(2.0, 0, 0)).contains("dispatch lateness p99 0.100 ms");
    }
}
