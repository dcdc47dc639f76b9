package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.ServerMetrics;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

class EngineTimelineTest {

    private static final Instant T0 = Instant.parse("2026-12-03T08:00:00Z");

    private static ServerMetrics sample(long atMs, double queued, double running, double generated) {
        return ServerMetrics.newBuilder().setContractId("c").setRunId("run").setTargetId("t").setEngine("llamacpp")
                .setSampledAtUs(T0.plusMillis(atMs)).setQueued(queued).setRunning(running).setPromptTokensTotal(null)
                .setGenerationTokensTotal(generated).setSamples(Map.of()).build();
    }

    private static RequestEvent request(long atMs, long ttftMs) {
        final Instant send = T0.plusMillis(atMs);
        return RequestEvent.newBuilder(SampleRecords.request()).setRequestId("r" + atMs).setStatus(RequestStatus.OK)
                .setErrorClass(null).setWarmup(false).setIntendedSendTimeUs(send).setActualSendTimeUs(send)
                .setFirstChunkTimeUs(send.plusMillis(ttftMs)).build();
    }

    @Test
    void theEnginesQueueAndThroughputBesideTheTtftOfTheRequestsSentInEachSpan() {
        final RunRecords run = new RunRecords("run", null, List.of(), List.of(request(1_000, 100), request(12_000, 3_000),
                request(13_000, 2_000), request(14_000, 2_500)), List.of(), List.of(), List.of(), List.of(), Map.of(), Map.of(),
                new ChunkArrivals(), List.of(sample(0, 0, 1, 0), sample(5_000, 0, 2, 500), sample(10_000, 4, 4, 500),
                        sample(15_000, 2, 4, 1_500)), Map.of());
        final List<EngineTimeline.Span> spans = EngineTimeline.spans(run);
        assertThat(spans).hasSize(2);
        assertThat(spans.get(0).queuedMax()).isZero();
        assertThat(spans.get(0).generationTokensPerS()).isEqualTo(100.0);
        assertThat(spans.get(0).requests()).isEqualTo(1);
        assertThat(spans.get(1).queuedMax()).isEqualTo(4.0);
        assertThat(spans.get(1).runningMax()).isEqualTo(4.0);
        assertThat(spans.get(1).generationTokensPerS()).isEqualTo(200.0);
        assertThat(spans.get(1).promptTokensPerS()).as("the engine gave no prompt total").isNull();
        assertThat(spans.get(1).ttftP50Us()).isEqualTo(2_500_000);
        assertThat(spans.get(1).ttftMaxUs()).isEqualTo(3_000_000);
        final StringBuilder h = new StringBuilder();
        EngineTimeline.section(h, spans);
        assertThat(h).contains("llamacpp names").contains("+10 s");
        assertThat(EngineTimeline.csv(spans)).startsWith("span_start_us,engine,queued_max");
    }

    @Test
    void noSamplesNoSection() {
        final RunRecords run = new RunRecords("run", null, List.of(), List.of(), List.of(), List.of(), List.of(), List.of(),
                Map.of(), Map.of(), new ChunkArrivals(), List.of(), Map.of());
        final StringBuilder h = new StringBuilder();
        EngineTimeline.section(h, EngineTimeline.spans(run));
        assertThat(h).isEmpty();
    }
}
