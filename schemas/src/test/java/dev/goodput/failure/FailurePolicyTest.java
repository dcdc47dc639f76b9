package dev.goodput.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class FailurePolicyTest {

    @Test
    void replacesABoundedNumberOfThreadsThenShutsDownWithTheRootCause() {
        final FailurePolicy p = new FailurePolicy("streams-app", 2);
        assertThat(p.reason()).isNull();
        final RuntimeException e = new RuntimeException("wrapped", new IllegalStateException("disk full"));
        assertThat(p.handle(e)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(p.handle(e)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(p.handle(e)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(p.failures()).isEqualTo(3);
        assertThat(p.reason()).isEqualTo("IllegalStateException: disk full");
    }

    @Test
    void zeroReplacementsShutsDownAtTheFirstFailureAndANegativeCountIsRefused() {
        assertThat(new FailurePolicy("sink", 0).handle(new RuntimeException("x")))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThatThrownBy(() -> new FailurePolicy("sink", -1)).hasMessageContaining("0 or more");
    }
}
