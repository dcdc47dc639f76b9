package dev.goodput.serde;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Confluent's wire format: magic byte 0, the writer schema's registry id as a 4-byte big-endian
 * int, then the Avro binary encoding of the record.
 */
public final class WireFormat {
    public static final byte MAGIC_BYTE = 0;
    public static final int HEADER_SIZE = 5;

    private WireFormat() {
    }

    /** Writes the 5-byte header into the first bytes of {@code target}. */
    public static void writeHeader(byte[] target, int schemaId) {
        target[0] = MAGIC_BYTE;
        ByteBuffer.wrap(target, 1, 4).putInt(schemaId);
    }

    /** Checks the header and returns the writer schema id. */
    public static int readSchemaId(String topic, byte[] data) {
        if (data.length < HEADER_SIZE) {
            throw new WireFormatException(WireFormatException.Reason.TRUNCATED, topic,
                    "record of " + data.length + " bytes is shorter than the 5-byte wire-format header", null);
        }
        if (data[0] != MAGIC_BYTE) {
            throw new WireFormatException(WireFormatException.Reason.BAD_MAGIC, topic,
                    String.format(Locale.ROOT, "unknown magic byte 0x%02x (expected 0x00)", data[0]), null);
        }
        return ByteBuffer.wrap(data, 1, 4).getInt();
    }
}
