package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.definitions.SloFlags;
import org.HdrHistogram.Histogram;
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

    @Test
    void measuredRequestsAreJudgedByTheObjectivesAndQualityAsTheStreamsAppJudgesThem() {
        final RunStats stats = new RunStats(SloFlags.parse(List.of("ttft:50", "e2el:2000")));
        for (int i = 0; i < 10; i++) {
            // TTFT 30 ms or 80 ms; quality passes on even requests only; the first two are warm-up
            final RequestEvent e = event(i, 100, i % 3 == 0 ? 80_000 : 30_000, i < 2);
            e.setLastChunkTimeUs(e.getIntendedSendTimeUs().plusMillis(500));
            e.setQualityPass(i % 2 == 0);
            stats.record(e);
        }
        final RequestEvent failed = event(10, 100, 30_000, false);
        failed.setStatus(RequestStatus.ERROR);
        failed.setErrorClass("http_500");
        stats.record(failed);
        // measured: 2..9 ok (8), plus one error; good = even and TTFT 30 ms: 2, 4, 8
        assertThat(stats.measuredOk.sum()).isEqualTo(8);
        assertThat(stats.measuredFailed.sum()).isEqualTo(1);
        assertThat(stats.measuredGood.sum()).isEqualTo(3);
        assertThat(stats.measuredInputTokens.sum()).isEqualTo(80);
        assertThat(stats.measuredOutputTokens.sum()).isEqualTo(40);
        // TPOT = (E2E - TTFT) / (tokens - 1): (500 - 80) / 4 and (500 - 30) / 4 ms
        final Histogram tpot = stats.latency().get("tpot");
        assertThat(tpot.getMinValue()).isEqualTo(tpot.lowestEquivalentValue(105_000));
        assertThat(tpot.getMaxValue()).isEqualTo(tpot.highestEquivalentValue(117_500));
        assertThat(stats.errorClasses.top(1)).extracting(ErrorClasses.Entry::errorClass).containsExactly("http_500");
    }
}
