package dev.goodput.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.Target;
import dev.goodput.capture.TimingPriority;
import dev.goodput.loop.MicroClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The selector proxy on the wire, against an upstream scripted byte by byte: kept-alive and
 * pipelined requests, a kept-alive connection the upstream closed, a body that ends at the close,
 * chunked and expect-continue request bodies, a client that reads slowly, HEAD, and bad requests.
 */
class NioProxyWireTest {

    /** One request as the upstream read it, and the connection it came on. */
    record Seen(int connection, String head, String body) {
    }

    private ServerSocket upstream;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private ProxyServer proxy;

    /** Starts an upstream that answers each request with {@code answer}'s bytes; null closes the connection instead. */
    private void upstream(Function<Seen, byte[]> answer) throws IOException {
        upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final Thread accept = new Thread(() -> {
            while (!upstream.isClosed()) {
                try {
                    final Socket s = upstream.accept();
                    final int id = connections.incrementAndGet();
                    final Thread t = new Thread(() -> serve(s, id, answer));
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        accept.setDaemon(true);
        accept.start();
        final Target target = new Target("http://127.0.0.1:" + upstream.getLocalPort() + "/v1", true, "m", null, Map.of(), "upstream",
                Duration.ofSeconds(30), Duration.ofSeconds(10), false);
        proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), URI.create("http://127.0.0.1:" + upstream.getLocalPort()),
                null, HttpFixtures.RUN, "observed", target, new CollectingSink(), MicroClock.system(), TimingPriority.NORMAL);
    }

    private void serve(Socket s, int id, Function<Seen, byte[]> answer) {
        try (s) {
            final InputStream in = s.getInputStream();
            final OutputStream out = s.getOutputStream();
            while (true) {
                final String head = readHead(in);
                if (head == null) {
                    return;
                }
                final int length = contentLength(head);
                final String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
                final Seen request = new Seen(id, head, body);
                seen.add(request);
                final byte[] bytes = answer.apply(request);
                if (bytes == null) {
                    return;
                }
                out.write(bytes);
                out.flush();
                if (head.contains("close-after")) {
                    return;
                }
            }
        } catch (IOException e) {
            // the proxy closed the connection
        }
    }

    @AfterEach
    void stop() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        upstream.close();
    }

    static String readHead(InputStream in) throws IOException {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            b.write(c);
            final byte[] a = b.toByteArray();
            final int n = a.length;
            if (n >= 4 && a[n - 4] == '\r' && a[n - 3] == '\n' && a[n - 2] == '\r' && a[n - 1] == '\n') {
                return b.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        return 0;
    }

    static byte[] ok(String body) {
        return ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Upstream: u\r\nKeep-Alive: timeout=5\r\nConnection: X-Hop\r\nX-Hop: 1\r\n"
                + "Content-Length: " + body.length()
                + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8);
    }

    private Socket client() throws IOException {
        final Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.address().getPort());
        s.setSoTimeout(20_000);
        return s;
    }

    private static void send(Socket s, String request) throws IOException {
        s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
    }

    /** Reads one response with a length (or chunks): its head and its body. */
    static String[] response(InputStream in) throws IOException {
        final String head = readHead(in);
        if (head.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")) {
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                final String size = readLine(in);
                final int n = Integer.parseInt(size.trim(), 16);
                if (n == 0) {
                    readLine(in);
                    return new String[] {head, body.toString(StandardCharsets.UTF_8)};
                }
                body.write(in.readNBytes(n));
                readLine(in);
            }
        }
        return new String[] {head, new String(in.readNBytes(contentLength(head)), StandardCharsets.UTF_8)};
    }

    private static String readLine(InputStream in) throws IOException {
        final StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    @Test
    void keptAliveAndPipelinedRequestsGoOneByOneOverOneUpstreamConnection() throws Exception {
        upstream(r -> ok("answer to " + r.head().split(" ")[1]));
        try (Socket c = client()) {
            send(c, "GET /v1/models HTTP/1.1\r\nHost: p\r\n\r\n");
            final String[] first = response(c.getInputStream());
            assertThat(first[0]).startsWith("HTTP/1.1 200 OK\r\n").contains("X-Upstream: u").doesNotContainIgnoringCase("keep-alive")
                    .doesNotContain("X-Hop").doesNotContain("Connection");
            assertThat(first[1]).isEqualTo("answer to /v1/models");
            // two at once: the second waits for the first's answer
            send(c, "GET /v1/a?x=1 HTTP/1.1\r\nHost: p\r\n\r\nGET /v1/b HTTP/1.1\r\nHost: p\r\n\r\n");
            assertThat(response(c.getInputStream())[1]).isEqualTo("answer to /v1/a?x=1");
            assertThat(response(c.getInputStream())[1]).isEqualTo("answer to /v1/b");
        }
        assertThat(seen).extracting(Seen::connection).containsOnly(1);
        assertThat(seen.get(0).head()).contains("Host: 127.0.0.1:" + upstream.getLocalPort());
        assertThat(proxy.passedThrough()).isEqualTo(3);
    }

    @Test
    void aRequestOnAKeptAliveConnectionTheUpstreamDroppedIsSentOnceMoreOnANewOne() throws Exception {
        final AtomicInteger drops = new AtomicInteger();
        // the upstream reads the first "drop" and closes without a word, as a server does with a connection it timed out
        upstream(r -> r.body().equals("drop") && drops.getAndIncrement() == 0 ? null : ok("fine " + r.body()));
        try (Socket c = client()) {
            send(c, "POST /v1/x HTTP/1.1\r\nHost: p\r\nContent-Length: 2\r\n\r\nhi");
            assertThat(response(c.getInputStream())[1]).isEqualTo("fine hi");
            send(c, "POST /v1/x HTTP/1.1\r\nHost: p\r\nContent-Length: 4\r\n\r\ndrop");
            assertThat(response(c.getInputStream())[1]).isEqualTo("fine drop");
        }
        assertThat(seen).extracting(Seen::connection).containsExactly(1, 1, 2);
    }

    @Test
    void aRequestANewConnectionLosesIsNotSentTwice() throws Exception {
        upstream(r -> r.body().equals("drop") ? null : ok("fine"));
        try (Socket c = client()) {
            send(c, "POST /v1/x HTTP/1.1\r\nHost: p\r\nContent-Length: 4\r\n\r\ndrop");
            final String[] r = response(c.getInputStream());
            assertThat(r[0]).startsWith("HTTP/1.1 502 ");
            assertThat(r[1]).contains("upstream failed").contains("closed the connection");
        }
        assertThat(seen).hasSize(1);
    }

    @Test
    void aBodyThatEndsAtTheUpstreamsCloseReachesTheClientInChunks() throws Exception {
        upstream(r -> ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Paris\"}}]}\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8));
        try (Socket c = client()) {
            send(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: p\r\nX-Close: close-after\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 15\r\n\r\n{\"stream\":true}");
            final String[] r = response(c.getInputStream());
            assertThat(r[0]).containsIgnoringCase("transfer-encoding: chunked").doesNotContain("Connection: close");
            assertThat(r[1]).isEqualTo("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Paris\"}}]}\n\ndata: [DONE]\n\n");
            // the client's connection stays usable
            send(c, "GET /v1/models HTTP/1.1\r\nHost: p\r\nX-Close: close-after\r\n\r\n");
            assertThat(response(c.getInputStream())[0]).startsWith("HTTP/1.1 200 OK");
        }
    }

    @Test
    void chunkedAndExpectContinueRequestBodiesArriveWhole() throws Exception {
        upstream(r -> ok(r.body()));
        try (Socket c = client()) {
            send(c, "POST /v1/x HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
            assertThat(response(c.getInputStream())[1]).isEqualTo("hello world");
            send(c, "POST /v1/x HTTP/1.1\r\nHost: p\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
            assertThat(readHead(c.getInputStream())).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
            send(c, "abc");
            assertThat(response(c.getInputStream())[1]).isEqualTo("abc");
        }
        assertThat(seen.get(0).head()).contains("Content-Length: 11").doesNotContainIgnoringCase("transfer-encoding");
        assertThat(seen.get(1).head()).doesNotContainIgnoringCase("expect");
    }

    @Test
    void aClientThatReadsSlowlyGetsEveryByte() throws Exception {
        final StringBuilder big = new StringBuilder();
        for (int i = 0; big.length() < 8 << 20; i++) {
            big.append("line ").append(i).append('\n');
        }
        final String body = big.toString();
        upstream(r -> ok(body));
        try (Socket c = client()) {
            send(c, "GET /v1/big HTTP/1.1\r\nHost: p\r\n\r\n");
            final InputStream in = c.getInputStream();
            final String head = readHead(in);
            // not reading for a while fills the client's socket: the proxy must hold what it read and pause the upstream
            Thread.sleep(300);
            final ByteArrayOutputStream got = new ByteArrayOutputStream();
            final byte[] buf = new byte[4096];
            int n;
            while (got.size() < contentLength(head) && (n = in.read(buf)) > 0) {
                got.write(buf, 0, n);
            }
            assertThat(got.size()).isEqualTo(body.length());
            assertThat(java.util.Arrays.equals(got.toByteArray(), body.getBytes(StandardCharsets.UTF_8))).as("the same bytes").isTrue();
        }
    }

    @Test
    void anHttp10ClientGetsAChunkedAnswerWithoutChunksAndTheConnectionCloses() throws Exception {
        upstream(r -> "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
                .getBytes(StandardCharsets.UTF_8));
        try (Socket c = client()) {
            send(c, "GET /v1/models HTTP/1.0\r\n\r\n");
            final String all = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(all).startsWith("HTTP/1.1 200 OK\r\n").contains("Connection: close").doesNotContainIgnoringCase("transfer-encoding")
                    .endsWith("\r\n\r\nhello world");
        }
    }

    @Test
    void aClientConnectionIdleLongerThanTheTimeoutIsClosed() throws Exception {
        upstream(r -> ok("fine"));
        proxy.clientIdleTimeout(Duration.ofMillis(300));
        try (Socket c = client()) {
            send(c, "GET /v1/models HTTP/1.1\r\nHost: p\r\n\r\n");
            assertThat(response(c.getInputStream())[1]).isEqualTo("fine");
            // nothing more: the proxy closes the connection (the sweep runs every second)
            assertThat(c.getInputStream().read()).isEqualTo(-1);
        }
        try (Socket c = client()) {
            // a request that never finishes coming in is closed the same way
            send(c, "GET /v1/models HTTP/1.1\r\n");
            assertThat(c.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void aHeadAnswerHasNoBodyAndTheConnectionGoesOn() throws Exception {
        upstream(r -> ("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n" + (r.head().startsWith("HEAD") ? "" : "x".repeat(42)))
                .getBytes(StandardCharsets.UTF_8));
        try (Socket c = client()) {
            send(c, "HEAD /v1/models HTTP/1.1\r\nHost: p\r\n\r\n");
            assertThat(readHead(c.getInputStream())).contains("Content-Length: 42");
            send(c, "GET /v1/models HTTP/1.1\r\nHost: p\r\n\r\n");
            assertThat(response(c.getInputStream())[1]).isEqualTo("x".repeat(42));
        }
    }

    @Test
    void aBadRequestGets400AndAnUnreachableUpstream502() throws Exception {
        upstream(r -> ok("never"));
        try (Socket c = client()) {
            send(c, "NONSENSE\r\n\r\n");
            final String[] r = response(c.getInputStream());
            assertThat(r[0]).startsWith("HTTP/1.1 400 ").contains("Connection: close");
            assertThat(r[1]).contains("not an HTTP/1.x request line");
        }
        proxy.close();
        // a port bound by a socket that does not listen: connecting to it is refused, whatever else runs here
        try (Socket holder = new Socket()) {
            holder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final int port = holder.getLocalPort();
            final Target target = new Target("http://127.0.0.1:" + port + "/v1", true, "m", null, Map.of(), "upstream",
                    Duration.ofSeconds(30), Duration.ofSeconds(10), false);
            proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), URI.create("http://127.0.0.1:" + port), null,
                    HttpFixtures.RUN, "observed", target, new CollectingSink(), MicroClock.system(), TimingPriority.NORMAL);
            try (Socket c = client()) {
                send(c, "GET /v1/models HTTP/1.1\r\nHost: p\r\n\r\n");
                final String[] r = response(c.getInputStream());
                assertThat(r[0]).startsWith("HTTP/1.1 502 ");
                assertThat(r[1]).contains("ConnectException");
            }
        }
    }
}
