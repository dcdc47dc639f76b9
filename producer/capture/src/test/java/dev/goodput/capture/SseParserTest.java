package dev.goodput.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class SseParserTest {

    private final List<String> events = new ArrayList<>();
    private final SseParser parser = new SseParser((d, n) -> events.add(new String(d, 0, n, StandardCharsets.UTF_8)));

    @Test
    void eventsSplitAcrossReadsAndLineEndings() {
        final String stream = "data: {\"a\":1}\n\ndata: {\"b\":2}\r\n\r\n: comment\n\ndata:{\"c\":3}\r\rdata: [DONE]\n\n";
        final byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            parser.feed(new byte[] {b});
        }
        assertThat(events).containsExactly("{\"a\":1}", "{\"b\":2}", "{\"c\":3}", "[DONE]");
        assertThat(parser.hasPartialEvent()).isFalse();
    }

    @Test
    void multiLineDataIsJoinedAndOtherFieldsIgnored() {
        parser.feed("event: message\nid: 7\ndata: line1\ndata: line2\nretry: 10\n\n".getBytes(StandardCharsets.UTF_8));
        assertThat(events).containsExactly("line1\nline2");
    }

    @Test
    void anUnfinishedEventIsReportedAndNotDispatched() {
        parser.feed("data: {\"a\":1}\n".getBytes(StandardCharsets.UTF_8));
        assertThat(events).isEmpty();
        assertThat(parser.hasPartialEvent()).isTrue();
    }

    @Test
    void fieldsThatOnlyStartWithDataAreNotData() {
        parser.feed("database: x\n\ndata\n\n".getBytes(StandardCharsets.UTF_8));
        assertThat(events).containsExactly("");
    }
}
