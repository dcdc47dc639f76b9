package dev.goodput.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** A client's request head as the proxy reads it, and the request the upstream gets. */
class RequestHeadTest {

    private static RequestHead parse(String head) throws RequestHead.Malformed {
        final byte[] b = head.getBytes(StandardCharsets.ISO_8859_1);
        return RequestHead.parse(b, RequestHead.headEnd(b, b.length));
    }

    @Test
    void theUpstreamGetsItsPathPrefixItsHostTheEndToEndHeadersAndTheBodysLength() throws Exception {
        final RequestHead h = parse("POST http://proxy:8080/v1/chat/completions?api-version=1 HTTP/1.1\r\nHost: proxy:8080\r\n"
                + "Authorization: Bearer k\r\nConnection: keep-alive, TE, X-Hop\r\nX-Hop: 1\r\nTE: trailers\r\nTransfer-Encoding: chunked\r\n"
                + "Expect: 100-continue\r\nX-Request-Id: r1\r\n\r\n");
        assertThat(h.method()).isEqualTo("POST");
        assertThat(h.rawPath()).isEqualTo("/v1/chat/completions");
        assertThat(h.rawQuery()).isEqualTo("api-version=1");
        assertThat(h.chunked()).isTrue();
        assertThat(h.expectContinue()).isTrue();
        assertThat(h.closeAfter()).isFalse();
        assertThat(h.header("x-request-id")).isEqualTo("r1");
        final String up = new String(h.forUpstream("/base/v1/chat/completions?api-version=1", "upstream:8000",
                "{}".getBytes(StandardCharsets.UTF_8)), StandardCharsets.ISO_8859_1);
        assertThat(up).isEqualTo("POST /base/v1/chat/completions?api-version=1 HTTP/1.1\r\nHost: upstream:8000\r\n"
                + "Authorization: Bearer k\r\nX-Request-Id: r1\r\nContent-Length: 2\r\n\r\n{}");
    }

    @Test
    void http10ClosesUnlessItAsksToKeepAliveAndConnectionCloseCloses() throws Exception {
        assertThat(parse("GET / HTTP/1.0\r\n\r\n").closeAfter()).isTrue();
        assertThat(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").closeAfter()).isFalse();
        assertThat(parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").closeAfter()).isTrue();
        assertThat(parse("GET / HTTP/1.1\r\n\r\n").contentLength()).isZero();
    }

    @Test
    void aChunkedBodyIsReadWholeOrNotYet() throws Exception {
        final byte[] b = "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\nNEXT".getBytes(StandardCharsets.ISO_8859_1);
        final RequestHead.Body body = RequestHead.dechunk(b, 0, b.length);
        assertThat(new String(body.data(), StandardCharsets.ISO_8859_1)).isEqualTo("hello world");
        assertThat(body.consumed()).isEqualTo(b.length - 4);
        assertThat(RequestHead.dechunk(b, 0, 12)).isNull();
        assertThatThrownBy(() -> RequestHead.dechunk("zz\r\n".getBytes(StandardCharsets.ISO_8859_1), 0, 4))
                .isInstanceOf(RequestHead.Malformed.class).hasMessageContaining("chunk size");
    }

    @Test
    void aHeadIsCutAtEachCrlfAndNowhereElse() {
        final byte[] b = "GET / HTTP/1.1\r\nA: 1\rx\r\nB: 2\ny\r\n\r\nC".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(RequestHead.lines(b, RequestHead.headEnd(b, b.length) - 4)).containsExactly("GET / HTTP/1.1", "A: 1\rx", "B: 2\ny");
        assertThat(RequestHead.lines(b, 0)).containsExactly("");
        assertThat(RequestHead.lines(b, 16)).containsExactly("GET / HTTP/1.1", "");
    }

    @Test
    void anObservedCallsIdKeepsTheClientsIdWithEightHexDigitsAfter() {
        assertThat(ProxyServer.requestId("r1")).matches("proxy-r1-[0-9a-f]{8}");
        assertThat(ProxyServer.requestId(null)).matches("proxy-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        assertThat(ProxyServer.requestId("has space")).startsWith("proxy-").doesNotContain("space");
        // eight hex digits whatever the random part: a small one is padded
        assertThat(java.util.stream.IntStream.range(0, 10_000).mapToObj(i -> ProxyServer.requestId("r1"))).allMatch(id -> id.length() == 17);
    }

    @Test
    void whatIsNotARequestIsRefusedWithTheReason() {
        assertThatThrownBy(() -> parse("GET /\r\n\r\n")).isInstanceOf(RequestHead.Malformed.class).hasMessageContaining("request line");
        assertThatThrownBy(() -> parse("GET / HTTP/1.1\r\nno colon\r\n\r\n")).hasMessageContaining("not a header line");
        assertThatThrownBy(() -> parse("GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n")).hasMessageContaining("Content-Length");
        assertThatThrownBy(() -> parse("GET * HTTP/1.1\r\n\r\n")).hasMessageContaining("must be a path");
    }
}
