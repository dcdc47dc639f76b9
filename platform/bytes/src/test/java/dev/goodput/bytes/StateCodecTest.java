package dev.goodput.bytes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Random;

import org.junit.jupiter.api.Test;

class StateCodecTest {

    /** A codec of the kind every state layout is: a format number, then fields. */
    private static final StateCodec<String> NAMES = new StateCodec<>() {
        @Override
        public byte[] encode(String value) {
            final ByteSink out = new ByteSink(8);
            Varint.writeLong(out, 3);
            Varint.writeString(out, value);
            return out.toByteArray();
        }

        @Override
        public String decode(byte[] bytes) {
            return Varint.readString(StateCodec.expectFormat(bytes, 3, "a name"));
        }
    };

    @Test
    void varintsStringsDoublesAndBytesComeBackAsWritten() {
        final long[] longs = {0, 1, -1, 63, 64, -64, -65, 127, 128, 300, Integer.MAX_VALUE, Long.MAX_VALUE, Long.MIN_VALUE};
        final String[] strings = {null, "", "a|b", "\u00e9t\u00e9 \ud83d\ude80"};
        final double[] doubles = {0.0, -0.0, 1.5, Double.NaN, Double.NEGATIVE_INFINITY, Double.MIN_VALUE};
        final byte[] blob = {0, -1, 127, -128};
        final ByteSink out = new ByteSink(1);
        for (long v : longs) {
            Varint.writeLong(out, v);
        }
        for (String v : strings) {
            Varint.writeString(out, v);
        }
        for (double v : doubles) {
            Varint.writeDouble(out, v);
        }
        Varint.writeBytes(out, blob);
        final ByteBuffer in = ByteBuffer.wrap(out.toByteArray());
        for (long v : longs) {
            assertThat(Varint.readLong(in)).isEqualTo(v);
        }
        for (String v : strings) {
            assertThat(Varint.readString(in)).isEqualTo(v);
        }
        for (double v : doubles) {
            assertThat(Double.doubleToRawLongBits(Varint.readDouble(in))).isEqualTo(Double.doubleToRawLongBits(v));
        }
        assertThat(Varint.readBytes(in)).containsExactly(blob);
        assertThat(in.hasRemaining()).isFalse();
    }

    @Test
    void smallMagnitudesTakeOneByteWhateverTheirSign() {
        final ByteSink out = new ByteSink(1);
        Varint.writeLong(out, -64);
        Varint.writeLong(out, 63);
        assertThat(out.toByteArray()).hasSize(2);
    }

    @Test
    void aValueOfAnotherLayoutIsRefusedByName() {
        final ByteSink other = new ByteSink(8);
        Varint.writeLong(other, 2);
        Varint.writeString(other, "x");
        assertThatThrownBy(() -> NAMES.decode(other.toByteArray()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a name is in layout 2, this build reads layout 3");
        assertThatThrownBy(() -> NAMES.decode(new byte[0])).hasMessageContaining("layout -1");
    }
}
