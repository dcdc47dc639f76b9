package dev.goodput.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Random;

import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.StateCodec;
import dev.goodput.bytes.Varint;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/** The state layouts' varints against Avro's own encoder, and a codec as a Kafka serde. */
class StateSerdesTest {

    private static final StateCodec<String> NAMES = new StateCodec<>() {
        @Override
        public byte[] encode(String value) {
            final ByteSink out = new ByteSink(8);
            Varint.writeString(out, value);
            return out.toByteArray();
        }

        @Override
        public String decode(byte[] bytes) {
            return Varint.readString(ByteBuffer.wrap(bytes));
        }
    };

    /** Avro's own encoder is the reference for the layout: zig-zag, then 7 bits a byte, low group first. */
    @Test
    void longsAreAvrosLongsByteForByteAtEveryLengthAndBufferEdge() throws Exception {
        final Random random = new Random(7);
        for (int round = 0; round < 2_000; round++) {
            // every length from 1 to 10 bytes, written into sinks that must grow at every offset
            final long v = round < 128 ? (round % 2 == 0 ? 1L : -1L) << (round / 2)
                    : random.nextLong() >> random.nextInt(64);
            final ByteSink out = new ByteSink(1);
            for (int pad = 0; pad < round % 19; pad++) {
                out.write(pad);
            }
            Varint.writeLong(out, v);
            final ByteArrayOutputStream avro = new ByteArrayOutputStream();
            for (int pad = 0; pad < round % 19; pad++) {
                avro.write(pad);
            }
            final BinaryEncoder e = EncoderFactory.get().directBinaryEncoder(avro, null);
            e.writeLong(v);
            e.flush();
            assertThat(out.toByteArray()).as("value %d", v).containsExactly(avro.toByteArray());
            final ByteBuffer in = ByteBuffer.wrap(out.toByteArray());
            in.position(round % 19);
            assertThat(Varint.readLong(in)).isEqualTo(v);
        }
    }

    @Test
    void theSerdeRoundTripsAndKeepsTombstones() {
        final Serde<String> serde = StateSerdes.of(NAMES);
        assertThat(serde.deserializer().deserialize("t", serde.serializer().serialize("t", "gpu"))).isEqualTo("gpu");
        assertThat(serde.serializer().serialize("t", null)).isNull();
        assertThat(serde.deserializer().deserialize("t", null)).isNull();
    }
}
