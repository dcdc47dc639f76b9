package dev.goodput.assembly;

import java.nio.ByteBuffer;
import java.util.List;

import dev.goodput.definitions.WindowTotals;
import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.Varint;

/**
 * The layout of a finished request's outcome and gaps in a partial-aggregate journal entry
 * ({@link PartialAggregates}): written as it is added, read back by a restart.
 */
final class JournalLayout {
    private JournalLayout() {
    }

    static void writeOutcome(ByteSink out, WindowTotals.Outcome o, long[] gaps, int count) {
        Varint.writeLong(out, o.status().ordinal());
        Varint.writeString(out, o.errorClass() == null ? "" : o.errorClass());
        Varint.writeLong(out, o.errorClass() == null ? 0 : 1);
        Varint.writeLong(out, o.ttftUs());
        Varint.writeLong(out, o.ttfatUs());
        Varint.writeLong(out, o.e2eUs());
        Varint.writeLong(out, Double.doubleToRawLongBits(o.tpotUs()));
        Varint.writeLong(out, o.outputTokens());
        Varint.writeLong(out, o.latenessUs());
        Varint.writeLong(out, (o.sloPass() ? 1 : 0) | (o.qualityPass() ? 2 : 0) | (o.good() ? 4 : 0));
        Varint.writeLong(out, count);
        for (int i = 0; i < count; i++) {
            Varint.writeLong(out, gaps[i]);
        }
    }

    /** Reads what {@link #writeOutcome} wrote: adds the outcome and its gaps to {@code totals}. */
    static void readOutcome(ByteBuffer in, WindowTotals totals) {
        final WindowTotals.Status status = WindowTotals.Status.values()[(int) Varint.readLong(in)];
        final String errorClass = Varint.readString(in);
        final boolean hasClass = Varint.readLong(in) == 1;
        final long ttft = Varint.readLong(in);
        final long ttfat = Varint.readLong(in);
        final long e2e = Varint.readLong(in);
        final double tpot = Double.longBitsToDouble(Varint.readLong(in));
        final int tokens = (int) Varint.readLong(in);
        final long lateness = Varint.readLong(in);
        final long flags = Varint.readLong(in);
        totals.add(new WindowTotals.Outcome(status, hasClass ? errorClass : null, ttft, ttfat, e2e, tpot, tokens,
                lateness, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0));
        readGaps(in, totals);
    }

    static void writeGaps(ByteSink out, List<Long> gaps) {
        Varint.writeLong(out, gaps.size());
        gaps.forEach(g -> Varint.writeLong(out, g));
    }

    static void readGaps(ByteBuffer in, WindowTotals totals) {
        final int n = (int) Varint.readLong(in);
        for (int i = 0; i < n; i++) {
            totals.addGap(Varint.readLong(in));
        }
    }
}
