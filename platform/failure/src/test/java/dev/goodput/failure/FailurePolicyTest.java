package dev.goodput.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class FailurePolicyTest {

    private static FailurePolicy running(int max) {
        final FailurePolicy p = new FailurePolicy("streams-app", max);
        p.onState(KafkaStreams.State.REBALANCING);
        p.onState(KafkaStreams.State.RUNNING);
        return p;
    }

    private static RuntimeException failure(String cause) {
        return new RuntimeException("wrapped", new IllegalStateException(cause));
    }

    @Test
    void replacesABoundedNumberOfThreadsThenShutsDownWithTheRootCause() {
        final FailurePolicy p = running(2);
        assertThat(p.reason()).isNull();
        assertThat(p.handle(failure("broker gone"))).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(p.handle(failure("disk full"))).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(p.handle(failure("broker gone"))).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(p.failures()).isEqualTo(3);
        assertThat(p.reason()).isEqualTo("IllegalStateException: broker gone");
    }

    @Test
    void theSameCauseTwiceInARowIsNotReplacedAgain() {
        final FailurePolicy p = running(10);
        assertThat(p.handle(failure("bad state"))).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(p.handle(failure("bad state"))).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    @Test
    void aFailureBeforeTheAppEverRanShutsItDownAtOnce() {
        final FailurePolicy p = new FailurePolicy("sink", 3);
        p.onState(KafkaStreams.State.REBALANCING);
        assertThat(p.handle(failure("internal topic has invalid partitions"))).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(p.reason()).contains("invalid partitions");
    }

    @Test
    void zeroReplacementsShutsDownAtTheFirstFailureAndANegativeCountIsRefused() {
        assertThat(running(0).handle(new RuntimeException("x")))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThatThrownBy(() -> new FailurePolicy("sink", -1)).hasMessageContaining("0 or more");
    }
}
