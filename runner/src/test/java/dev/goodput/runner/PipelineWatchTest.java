package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PipelineWatchTest {

    @Test
    void aStoppedStreamsAppOrSinkIsAStoppedPipeline() {
        assertThat(PipelineWatch.stopped(PipelineWatch.STREAMS_STOPPED + "StreamsException: x")).isTrue();
        assertThat(PipelineWatch.stopped(PipelineWatch.SINK_STOPPED + "StreamsException: y")).isTrue();
    }

    @Test
    void aStoppedLoadGeneratorOrNoFailureIsNot() {
        assertThat(PipelineWatch.stopped("load generator stopped: connection refused")).isFalse();
        assertThat(PipelineWatch.stopped(null)).isFalse();
    }
}
