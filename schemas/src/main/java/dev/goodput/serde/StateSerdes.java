package dev.goodput.serde;

import dev.goodput.bytes.StateCodec;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** A {@link StateCodec} as a Kafka serde, for a store or topic typed by it. */
public final class StateSerdes {

    private StateSerdes() {
    }

    /** The codec's serde; null stays null (a tombstone). */
    public static <V> Serde<V> of(StateCodec<V> codec) {
        return Serdes.serdeFrom((topic, v) -> v == null ? null : codec.encode(v),
                (topic, b) -> b == null ? null : codec.decode(b));
    }
}
