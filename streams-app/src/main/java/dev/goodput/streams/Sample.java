package dev.goodput.streams;

import java.nio.ByteBuffer;

/**
 * What stage A (per input partition) sends to the window merger: either one finished request's
 * measurements, or a watermark (the upstream partition's event-time progress). Internal topic
 * only; a compact binary layout, versioned by its first byte.
 */
sealed interface Sample permits Sample.Request, Sample.Watermark {

    byte REQUEST = 1;
    byte WATERMARK = 2;

    /** The upstream partition that sent it. */
    int upstream();

    /** Upstream event-time progress when it was sent: nothing earlier than this minus the grace will follow. */
    long watermarkUs();

    /**
     * A finished request.
     *
     * @param status      RequestStatus ordinal
     * @param ttftUs      Definitions.UNDEFINED unless ok
     * @param ttfatUs     Definitions.UNDEFINED unless ok with an answer chunk
     * @param e2eUs       Definitions.UNDEFINED unless ok
     * @param tpotUs      NaN unless ok with >= 2 output tokens
     * @param gapsUs      ITL gaps (ok requests only)
     * @param gapTimesUs  event time of each gap's later chunk
     */
    record Request(int upstream, long watermarkUs, String contractId, String scenarioId, long completionUs, int status,
                   String errorClass, long ttftUs, long ttfatUs, long e2eUs, double tpotUs, int outputTokens,
                   long latenessUs, boolean sloPass, boolean qualityPass, boolean good, long[] gapsUs,
                   long[] gapTimesUs) implements Sample {
    }

    /** Event-time progress of one upstream partition. */
    record Watermark(int upstream, long watermarkUs) implements Sample {
    }

    static byte[] encode(Sample s) {
        final ByteSink out = new ByteSink(64);
        if (s instanceof Request r) {
            out.write(REQUEST);
            Varint.writeLong(out, r.upstream());
            Varint.writeLong(out, r.watermarkUs());
            Varint.writeString(out, r.contractId());
            Varint.writeString(out, r.scenarioId());
            Varint.writeLong(out, r.completionUs());
            Varint.writeLong(out, r.status());
            Varint.writeString(out, r.errorClass());
            Varint.writeLong(out, r.ttftUs());
            Varint.writeLong(out, r.ttfatUs());
            Varint.writeLong(out, r.e2eUs());
            Varint.writeDouble(out, r.tpotUs());
            Varint.writeLong(out, r.outputTokens());
            Varint.writeLong(out, r.latenessUs());
            out.write((r.sloPass() ? 1 : 0) | (r.qualityPass() ? 2 : 0) | (r.good() ? 4 : 0));
            Varint.writeLong(out, r.gapsUs().length);
            long prev = r.completionUs();
            for (int i = 0; i < r.gapsUs().length; i++) {
                Varint.writeLong(out, r.gapsUs()[i]);
                Varint.writeLong(out, r.gapTimesUs()[i] - prev);
                prev = r.gapTimesUs()[i];
            }
        } else {
            final Watermark w = (Watermark) s;
            out.write(WATERMARK);
            Varint.writeLong(out, w.upstream());
            Varint.writeLong(out, w.watermarkUs());
        }
        return out.toByteArray();
    }

    static Sample decode(byte[] bytes) {
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        final byte type = in.get();
        final int upstream = (int) Varint.readLong(in);
        final long wm = Varint.readLong(in);
        if (type == WATERMARK) {
            return new Watermark(upstream, wm);
        }
        final String contract = Varint.readString(in);
        final String scenario = Varint.readString(in);
        final long completion = Varint.readLong(in);
        final int status = (int) Varint.readLong(in);
        final String errorClass = Varint.readString(in);
        final long ttft = Varint.readLong(in);
        final long ttfat = Varint.readLong(in);
        final long e2e = Varint.readLong(in);
        final double tpot = Varint.readDouble(in);
        final int tokens = (int) Varint.readLong(in);
        final long lateness = Varint.readLong(in);
        final int flags = in.get();
        final int n = (int) Varint.readLong(in);
        final long[] gaps = new long[n];
        final long[] times = new long[n];
        long prev = completion;
        for (int i = 0; i < n; i++) {
            gaps[i] = Varint.readLong(in);
            prev += Varint.readLong(in);
            times[i] = prev;
        }
        return new Request(upstream, wm, contract, scenario, completion, status, errorClass, ttft, ttfat, e2e, tpot,
                tokens, lateness, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0, gaps, times);
    }
}
