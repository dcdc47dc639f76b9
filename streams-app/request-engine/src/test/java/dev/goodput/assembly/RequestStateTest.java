package dev.goodput.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import dev.goodput.bytes.Varint;
import org.junit.jupiter.api.Test;

/**
 * A request's stored state holds its chunks as (index, arrival since the chunk before) in the order
 * they came, appended when the state is written: whatever came between two writes is in the next,
 * and a restart reads back exactly the chunks it had.
 */
class RequestStateTest {

    @Test
    void everyChunkAddedBetweenWritesIsInTheNextWriteInTheOrderItCame() {
        final Random random = new Random(11);
        for (int round = 0; round < 200; round++) {
            final int n = 1 + random.nextInt(300);
            final List<Integer> indices = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                indices.add(i);
            }
            Collections.shuffle(indices, random);
            final RequestState s = new RequestState();
            s.id = "r" + round;
            s.contractId = "c";
            s.scenarioId = "s";
            final List<long[]> added = new ArrayList<>();
            byte[] written = null;
            for (int k = 0; k < n; k++) {
                final int index = indices.get(k);
                final long arrival = 1_000_000L + index * 9_000L + random.nextInt(500);
                assertThat(s.addChunk(index, arrival)).isTrue();
                added.add(new long[] {index, arrival});
                if (random.nextInt(4) == 0) {
                    assertThat(s.addChunk(index, arrival + 1)).as("a chunk index again").isFalse();
                }
                if (random.nextInt(7) == 0) {
                    written = RequestState.CODEC.encode(s); // a write between runs
                }
            }
            written = RequestState.CODEC.encode(s);
            assertThat(chunksOf(written)).as("round %d", round).containsExactlyElementsOf(added);

            final RequestState restored = RequestState.CODEC.decode(written);
            assertThat(restored.seenCount).isEqualTo(n);
            for (long[] c : added) {
                assertThat(restored.arrivals[(int) c[0]]).isEqualTo(c[1]);
            }
            // what a restart writes is what was read, and it goes on appending after it
            assertThat(RequestState.CODEC.encode(restored)).containsExactly(written);
            restored.addChunk(n, 5_000_000L);
            s.addChunk(n, 5_000_000L);
            assertThat(RequestState.CODEC.encode(restored)).containsExactly(RequestState.CODEC.encode(s));
        }
    }

    /** The chunks of a written state, as (index, arrival) in the order the layout lists them. */
    private static List<long[]> chunksOf(byte[] bytes) {
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        Varint.readString(in); // id
        Varint.readString(in); // contract
        Varint.readString(in); // scenario
        Varint.readLong(in);
        Varint.readLong(in); // duplicates
        Varint.readLong(in); // completion
        Varint.readLong(in); // expected chunks
        final int requestBytes = (int) Varint.readLong(in);
        in.position(in.position() + Math.max(0, requestBytes));
        final int n = (int) Varint.readLong(in);
        final List<long[]> chunks = new ArrayList<>();
        long at = 0;
        for (int i = 0; i < n; i++) {
            final long index = Varint.readLong(in);
            at += Varint.readLong(in);
            chunks.add(new long[] {index, at});
        }
        return chunks;
    }
}
