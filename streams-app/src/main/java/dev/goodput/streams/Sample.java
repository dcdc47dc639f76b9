package dev.goodput.streams;

import java.nio.ByteBuffer;

import dev.goodput.assembly.WindowAgg;
import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.StateCodec;
import dev.goodput.bytes.Varint;

/**
 * What stage A (per input partition) sends to the window merger: a partial aggregate of one
 * (contract, scenario, window) over that partition's requests finished since the last one, or a
 * watermark (the upstream partition's event-time progress). Internal topic only; a compact binary
 * layout, versioned by its first byte.
 */
sealed interface Sample permits Sample.Watermark, Sample.Partial {

    byte WATERMARK = 2;
    byte PARTIAL = 3;

    /** The upstream partition that sent it. */
    int upstream();

    /** Upstream event-time progress when it was sent: nothing earlier than this minus the grace will follow. */
    long watermarkUs();

    /** Requests of one upstream partition in one (contract, scenario, window), aggregated. */
    record Partial(int upstream, long watermarkUs, WindowAgg agg) implements Sample {
    }

    /** Event-time progress of one upstream partition. */
    record Watermark(int upstream, long watermarkUs) implements Sample {
    }

    /** The internal topic's layout: a type byte, the upstream partition and its watermark, then the partial aggregate. */
    StateCodec<Sample> CODEC = new StateCodec<>() {
        @Override
        public byte[] encode(Sample s) {
            final ByteSink out = new ByteSink(64);
            if (s instanceof Partial p) {
                out.write(PARTIAL);
                Varint.writeLong(out, p.upstream());
                Varint.writeLong(out, p.watermarkUs());
                Varint.writeBytes(out, WindowAgg.CODEC.encode(p.agg()));
            } else if (s instanceof Watermark w) {
                out.write(WATERMARK);
                Varint.writeLong(out, w.upstream());
                Varint.writeLong(out, w.watermarkUs());
            } else {
                throw new IllegalArgumentException("not a sample of the internal topic: " + s);
            }
            return out.toByteArray();
        }

        @Override
        public Sample decode(byte[] bytes) {
            final ByteBuffer in = ByteBuffer.wrap(bytes);
            final byte type = in.get();
            final int upstream = (int) Varint.readLong(in);
            final long wm = Varint.readLong(in);
            return switch (type) {
                case WATERMARK -> new Watermark(upstream, wm);
                case PARTIAL -> new Partial(upstream, wm, WindowAgg.CODEC.decode(Varint.readBytes(in)));
                default -> throw new IllegalArgumentException("unknown sample type " + type);
            };
        }
    };
}
