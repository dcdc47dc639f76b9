package dev.goodput.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class FinishedRequestsTest {

    private static LiveStore<FinishedRequests.Bucket> store(MemoryByteStore inner) {
        final LiveStore<FinishedRequests.Bucket> s = new LiveStore<>(inner, FinishedRequests.CODEC);
        s.load();
        return s;
    }

    @Test
    void idsAreKeptInBucketsOfCompletionTimeAndSurviveARestore() {
        final MemoryByteStore inner = new MemoryByteStore();
        final LiveStore<FinishedRequests.Bucket> buckets = store(inner);
        final List<String> gone = new ArrayList<>();
        final FinishedRequests f = new FinishedRequests(buckets, gone::add);
        f.add("a", 1_000_000);
        f.add("b", 1_050_000);
        f.add("c", 1_250_000);
        // two buckets written back, not three records
        buckets.writeBack();
        assertThat(inner.size()).isEqualTo(2);
        assertThat(f.contains("a")).isTrue();
        assertThat(f.contains("x")).isFalse();

        final FinishedRequests restored = new FinishedRequests(store(inner), id -> { });
        assertThat(restored.contains("a")).isTrue();
        assertThat(restored.contains("b")).isTrue();
        assertThat(restored.contains("c")).isTrue();
        // a bucket read back encodes to the same bytes: its appended encoding is the whole encoding
        inner.forEach((key, value) -> {
            final FinishedRequests.Bucket b = FinishedRequests.CODEC.decode(value);
            assertThat(FinishedRequests.CODEC.encode(b)).isEqualTo(value);
            assertThat(b.ids).isNotEmpty();
        });
        assertThat(FinishedRequests.CODEC.decode(inner.get(Long.toString(10))).ids).containsExactly("a", "b");

        // the first bucket ends at 1.1 s: gone once event time minus window and grace passes it
        f.expire(1_100_000);
        assertThat(f.contains("a")).isFalse();
        assertThat(f.contains("b")).isFalse();
        assertThat(f.contains("c")).isTrue();
        assertThat(f.size()).isEqualTo(1);
        assertThat(gone).containsExactly("a", "b");
    }
}
