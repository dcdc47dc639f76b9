package dev.goodput.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Response framing as the generator's client and the proxy read it: the head line by line, then the body by its framing. */
class ResponseParserTest {

    /** What the parser reported, in order. */
    private static final class Recorder implements ResponseParser.Listener {
        final List<String> calls = new ArrayList<>();
        final StringBuilder body = new StringBuilder();
        boolean ended;

        @Override
        public void status(int code) {
            calls.add("status " + code);
        }

        @Override
        public void headLine(String line) {
            calls.add("line " + line);
        }

        @Override
        public void headEnd() {
            calls.add("head end");
        }

        @Override
        public void body(ByteBuffer slice) {
            body.append(StandardCharsets.ISO_8859_1.decode(slice));
        }

        @Override
        public void end(boolean keepAlive) {
            calls.add("end " + keepAlive);
            ended = true;
        }
    }

    /** Feeds the bytes one read of {@code step} bytes at a time, until the response ends. */
    private static Recorder parse(ResponseParser p, String response, int step) throws IOException {
        final Recorder r = new Recorder();
        final byte[] bytes = response.getBytes(StandardCharsets.ISO_8859_1);
        for (int at = 0; at < bytes.length && !r.ended; at += step) {
            final ByteBuffer read = ByteBuffer.wrap(bytes, at, Math.min(step, bytes.length - at));
            while (read.hasRemaining() && !r.ended) {
                p.step(read, r);
            }
        }
        return r;
    }

    @Test
    void theHeadComesLineByLineBeforeAnyBodyAndChunkFramingIsRemoved() throws IOException {
        for (int step : new int[] {1, 3, 1000}) {
            final ResponseParser p = new ResponseParser();
            final Recorder r = parse(p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nT: x\r\n\r\n", step);
            assertThat(r.calls).containsExactly("status 200", "line HTTP/1.1 200 OK", "line Transfer-Encoding: chunked", "line X-A: b",
                    "head end", "end true");
            assertThat(r.body).hasToString("hello world");
            assertThat(p.chunked()).isTrue();
            assertThat(p.delimited()).isTrue();
        }
    }

    @Test
    void aHeadRequestsAnswerAnd204And304HaveNoBodyWhateverTheirLength() throws IOException {
        final ResponseParser p = new ResponseParser();
        p.reset(true);
        assertThat(parse(p, "HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n", 1000).calls).endsWith("head end", "end true");
        for (String status : new String[] {"204 No Content", "304 Not Modified"}) {
            p.reset(false);
            final Recorder r = parse(p, "HTTP/1.1 " + status + "\r\nContent-Length: 42\r\n\r\n", 1000);
            assertThat(r.calls).endsWith("head end", "end true");
            assertThat(r.body).isEmpty();
        }
    }

    @Test
    void aBodyWithoutFramingRunsUntilTheClose() throws IOException {
        final ResponseParser p = new ResponseParser();
        final Recorder r = parse(p, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it", 4);
        assertThat(r.ended).isFalse();
        assertThat(r.body).hasToString("all of it");
        assertThat(p.delimited()).isFalse();
        assertThat(p.endsAtClose()).isTrue();
    }

    /** llama-server's {@code Keep-Alive: timeout=5, max=100}: the client keeps an idle connection less long than that. */
    @Test
    void keepAliveParametersAreRead() throws IOException {
        final ResponseParser p = new ResponseParser();
        parse(p, "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: 0\r\n\r\n", 7);
        assertThat(p.keepAliveTimeoutS()).isEqualTo(5);
        assertThat(p.keepAliveMax()).isEqualTo(100);
        p.reset();
        parse(p, "HTTP/1.1 200 OK\r\nkeep-alive: MAX=0, timeout=x\r\nContent-Length: 0\r\n\r\n", 7);
        assertThat(p.keepAliveMax()).isZero();
        assertThat(p.keepAliveTimeoutS()).as("a value that is not a number is ignored").isEqualTo(-1);
        p.reset();
        parse(p, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 7);
        assertThat(p.keepAliveTimeoutS()).isEqualTo(-1);
        assertThat(p.keepAliveMax()).isEqualTo(-1);
    }
}
