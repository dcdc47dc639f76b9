package dev.goodput.sink;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.StateCodec;
import dev.goodput.bytes.Varint;

/**
 * The value of the sink's price store: every dated version of one price key, by the time it takes
 * effect (µs), each kept as the GpuPrice's own registry-framed bytes.
 */
final class PriceVersions {
    private static final int FORMAT = 1;

    static final StateCodec<TreeMap<Long, byte[]>> CODEC = new StateCodec<>() {
        @Override
        public byte[] encode(TreeMap<Long, byte[]> versions) {
            final ByteSink out = new ByteSink(16 + versions.size() * 128);
            Varint.writeLong(out, FORMAT);
            Varint.writeLong(out, versions.size());
            for (Map.Entry<Long, byte[]> e : versions.entrySet()) {
                Varint.writeLong(out, e.getKey());
                Varint.writeBytes(out, e.getValue());
            }
            return out.toByteArray();
        }

        @Override
        public TreeMap<Long, byte[]> decode(byte[] bytes) {
            final ByteBuffer in = StateCodec.expectFormat(bytes, FORMAT, "the sink's price versions");
            final int n = (int) Varint.readLong(in);
            final TreeMap<Long, byte[]> versions = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                versions.put(Varint.readLong(in), Varint.readBytes(in));
            }
            return versions;
        }
    };

    private PriceVersions() {
    }
}
