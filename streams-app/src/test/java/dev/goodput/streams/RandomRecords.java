package dev.goodput.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.goodput.definitions.Micros;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * Records filled field by field from their schema: nulls in unions, empty and longer arrays, non-ASCII
 * text, extreme numbers. A field added to a schema gets values too, so a reader or writer bound to a
 * layout meets it in its test.
 */
final class RandomRecords {
    private RandomRecords() {
    }

    static <T extends SpecificRecordBase> T fill(T record, Random r) {
        for (Schema.Field f : record.getSchema().getFields()) {
            record.put(f.pos(), value(f.schema(), r));
        }
        return record;
    }

    private static Object value(Schema s, Random r) {
        switch (s.getType()) {
            case UNION -> {
                final List<Schema> branches = s.getTypes();
                final Schema pick = branches.get(r.nextInt(branches.size()));
                return pick.getType() == Schema.Type.NULL ? null : value(pick, r);
            }
            case STRING -> {
                return text(r);
            }
            case LONG -> {
                final long n = r.nextLong() >> r.nextInt(64);
                if (s.getLogicalType() instanceof LogicalTypes.TimestampMicros) {
                    return Micros.toInstant(n >> 2); // within what an Instant holds
                }
                return n;
            }
            case INT -> {
                return r.nextInt() >> r.nextInt(32);
            }
            case DOUBLE -> {
                final double[] odd = {Double.NaN, -0.0, Double.POSITIVE_INFINITY, Double.MIN_VALUE};
                return r.nextInt(8) == 0 ? odd[r.nextInt(odd.length)] : r.nextGaussian() * Math.pow(10, r.nextInt(12));
            }
            case BOOLEAN -> {
                return r.nextBoolean();
            }
            case ENUM -> {
                return SpecificData.get().createEnum(s.getEnumSymbols().get(r.nextInt(s.getEnumSymbols().size())), s);
            }
            case ARRAY -> {
                final List<Object> items = new ArrayList<>();
                final int n = r.nextInt(3) == 0 ? 0 : r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    items.add(value(s.getElementType(), r));
                }
                return items;
            }
            case RECORD -> {
                return fill((SpecificRecordBase) SpecificData.get().newRecord(null, s), r);
            }
            default -> throw new IllegalStateException("a field of type " + s.getType() + ": fill it here");
        }
    }

    private static String text(Random r) {
        final String[] pieces = {"", "c0ffee", "r-000123", "\u00e9t\u00e9", "\ud83d\ude80", "ttft", "a|b", "x".repeat(70)};
        final StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(3); i >= 0; i--) {
            b.append(pieces[r.nextInt(pieces.length)]);
        }
        return b.toString();
    }
}
