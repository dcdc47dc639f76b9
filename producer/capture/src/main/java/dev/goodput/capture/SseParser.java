package dev.goodput.capture;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * An incremental parser of server-sent events (the WHATWG event-stream format) fed with bytes as
 * they arrive: lines may be split across reads, end in LF, CRLF or CR, and an event ends at a blank
 * line. Only {@code data} fields matter to OpenAI-style streams; several data lines of one event are
 * joined with LF, comments and other fields are skipped. Not thread-safe: one parser per stream.
 */
public final class SseParser {

    /** Receives the data of each complete event; the array is reused, copy what you keep. */
    @FunctionalInterface
    public interface Listener {
        void onEvent(byte[] data, int length);
    }

    private final Listener listener;
    private byte[] line = new byte[512];
    private int lineLength;
    private byte[] data = new byte[512];
    private int dataLength;
    private boolean hasData;
    private boolean lastWasCr;

    public SseParser(Listener listener) {
        this.listener = listener;
    }

    public void feed(ByteBuffer buffer) {
        while (buffer.hasRemaining()) {
            final byte b = buffer.get();
            if (lastWasCr) {
                lastWasCr = false;
                if (b == '\n') {
                    continue;
                }
            }
            if (b == '\n' || b == '\r') {
                lastWasCr = b == '\r';
                endOfLine();
            } else {
                if (lineLength == line.length) {
                    line = Arrays.copyOf(line, line.length * 2);
                }
                line[lineLength++] = b;
            }
        }
    }

    public void feed(byte[] bytes) {
        feed(ByteBuffer.wrap(bytes));
    }

    /** True when bytes of an unfinished event are buffered (a stream that ends here was cut short). */
    public boolean hasPartialEvent() {
        return lineLength > 0 || hasData;
    }

    private void endOfLine() {
        if (lineLength == 0) {
            if (hasData) {
                listener.onEvent(data, dataLength);
            }
            dataLength = 0;
            hasData = false;
            return;
        }
        if (line[0] != ':' && startsWithData()) {
            int start = 4;
            if (lineLength > 4 && line[4] == ':') {
                start = 5;
                if (lineLength > 5 && line[5] == ' ') {
                    start = 6;
                }
            }
            if (lineLength == 4 || line[4] == ':') {
                appendData(start);
            }
        }
        lineLength = 0;
    }

    private boolean startsWithData() {
        return lineLength >= 4 && line[0] == 'd' && line[1] == 'a' && line[2] == 't' && line[3] == 'a';
    }

    private void appendData(int start) {
        final int n = lineLength - start;
        final int needed = dataLength + n + 1;
        if (needed > data.length) {
            data = Arrays.copyOf(data, Math.max(needed, data.length * 2));
        }
        if (hasData) {
            data[dataLength++] = '\n';
        }
        System.arraycopy(line, start, data, dataLength, n);
        dataLength += n;
        hasData = true;
    }
}
