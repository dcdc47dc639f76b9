package dev.goodput.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.definitions.Micros;
import dev.goodput.loop.MicroClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * How a real engine's server behaves, imitated exactly so each case is certain (LlamaServerIT meets
 * the real one): a queue that sends nothing until a slot is free, a kept-alive connection closed
 * under a request, an error inside a 200 stream, a refusal that counts the prompt.
 */
class EngineBehaviourTest {

    private static final String STREAM = "data: {\"choices\":[{\"delta\":{\"content\":\"Paris\"}}]}\n\n"
            + "data: {\"choices\":[{\"delta\":{\"content\":\" yes\"}}]}\n\n"
            + "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
            + "data: [DONE]\n\n";
    private static final StreamingClient CLIENT = new StreamingClient(8);

    @AfterAll
    static void close() {
        CLIENT.close();
    }

    /** A server that sends nothing, not even its status line, for {@code queueMs}, then streams an answer. */
    private static HttpServer queueing(long queueMs) throws IOException {
        final HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        s.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            try {
                Thread.sleep(queueMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(STREAM.getBytes(StandardCharsets.UTF_8));
            } catch (IOException clientGone) {
                // the client timed out first
            }
        });
        s.start();
        return s;
    }

    private static RequestEvent one(Target t, boolean jetty) throws Exception {
        final CompletableFuture<RequestEvent> done = new CompletableFuture<>();
        final RequestExecution x = new RequestExecution(HttpFixtures.spec("q-" + System.nanoTime(), 8, MicroClock.system().nowMicros()),
                HttpFixtures.RUN, t, MicroClock.system(), new CollectingSink(), done::complete);
        if (jetty) {
            x.start(CLIENT.http());
        } else {
            x.start(CLIENT);
        }
        return done.get(60, TimeUnit.SECONDS);
    }

    private static long ttftUs(RequestEvent e) {
        return Micros.of(e.getFirstChunkTimeUs()) - Micros.of(e.getIntendedSendTimeUs());
    }

    /**
     * A wait for the response head longer than the stall timeout is TTFT, not a stall: the request
     * succeeds, its TTFT holds the wait, and a longer queue gives a longer TTFT (no figure improves
     * when the system under test gets worse). Both clients: the selector one and Jetty's (TLS targets).
     */
    @Test
    void aQueuedRequestIsSlowNotTimedOut() throws Exception {
        for (boolean jetty : new boolean[] {false, true}) {
            long previous = 0;
            // the stall timeout well below the queue and well above anything a loaded machine adds between two writes
            for (long queueMs : new long[] {1_200, 2_400}) {
                final HttpServer s = queueing(queueMs);
                try {
                    final RequestEvent e = one(HttpFixtures.target(HttpFixtures.baseUrl(s), true, false, Duration.ofSeconds(30),
                            Duration.ofMillis(800)), jetty);
                    assertThat(e.getStatus()).as(e.getErrorMessage()).isEqualTo(RequestStatus.OK);
                    assertThat(ttftUs(e)).isGreaterThanOrEqualTo(queueMs * 1000).isGreaterThan(previous);
                    previous = ttftUs(e);
                } finally {
                    s.stop(0);
                }
            }
        }
    }

    /** A head that does not come within the request timeout: a timeout that says where the request waited. */
    @Test
    void aHeadThatNeverComesIsATimeoutThatSaysWhere() throws Exception {
        final HttpServer s = queueing(5_000);
        try {
            for (boolean jetty : new boolean[] {false, true}) {
                final RequestEvent e = one(HttpFixtures.target(HttpFixtures.baseUrl(s), true, false, Duration.ofMillis(400),
                        Duration.ofMillis(100)), jetty);
                assertThat(e.getStatus()).isEqualTo(RequestStatus.TIMEOUT);
                assertThat(e.getErrorMessage()).startsWith("no response head within 400 ms");
            }
        } finally {
            s.stop(0);
        }
    }

    /**
     * A raw HTTP/1.1 server: every connection's requests are answered by {@code answer} (given the
     * request's number on its connection, from 1); a null answer closes the connection unanswered.
     */
    private static final class RawServer implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger requests = new AtomicInteger();

        RawServer(Function<Integer, String> answer) throws IOException {
            final Thread t = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        final Socket c = socket.accept();
                        final Thread conn = new Thread(() -> serve(c, answer));
                        conn.setDaemon(true);
                        conn.start();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
        }

        private void serve(Socket c, Function<Integer, String> answer) {
            try (c) {
                final InputStream in = c.getInputStream();
                for (int n = 1; ; n++) {
                    final String head = readHead(in);
                    if (head == null) {
                        return;
                    }
                    final int length = Integer.parseInt(head.replaceAll("(?s).*[Cc]ontent-[Ll]ength: *([0-9]+).*", "$1"));
                    in.readNBytes(length);
                    requests.incrementAndGet();
                    final String a = answer.apply(n);
                    if (a == null) {
                        return;
                    }
                    c.getOutputStream().write(a.getBytes(StandardCharsets.UTF_8));
                    c.getOutputStream().flush();
                }
            } catch (IOException gone) {
                // the client closed
            }
        }

        private static String readHead(InputStream in) throws IOException {
            final StringBuilder sb = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0) {
                sb.append((char) b);
                if (sb.length() >= 4 && sb.substring(sb.length() - 4).equals("\r\n\r\n")) {
                    return sb.toString();
                }
            }
            return null;
        }

        String baseUrl() {
            return "http://127.0.0.1:" + socket.getLocalPort() + "/v1";
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static String answer(String body) {
        return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    /**
     * The server closes a kept-alive connection as the next request arrives on it (llama-server closes
     * after every streamed answer): the request is sent once more on a new connection, and says so.
     */
    @Test
    void aRequestOnAConnectionTheServerClosedIsSentOnceMoreAndRecorded() throws Exception {
        try (RawServer s = new RawServer(n -> n == 1 ? answer(STREAM) : null)) {
            final Target t = HttpFixtures.target(s.baseUrl());
            assertThat(one(t, false).getResends()).isNull();
            final RequestEvent second = one(t, false);
            assertThat(second.getStatus()).as(second.getErrorMessage()).isEqualTo(RequestStatus.OK);
            assertThat(second.getResends()).isEqualTo(1);
            assertThat(second.getResendReason()).contains("reused connection").contains("EOFException");
            assertThat(s.requests.get()).isEqualTo(3);
        }
    }

    /** Sent once more, never twice: a request that fails again on its new connection is an error. */
    @Test
    void aResentRequestThatFailsAgainIsAnErrorNotResentTwice() throws Exception {
        final AtomicInteger all = new AtomicInteger();
        try (RawServer s = new RawServer(n -> all.incrementAndGet() == 1 ? answer(STREAM) : null)) {
            final Target t = HttpFixtures.target(s.baseUrl());
            assertThat(one(t, false).getStatus()).isEqualTo(RequestStatus.OK);
            final RequestEvent second = one(t, false);
            assertThat(second.getErrorClass()).isEqualTo("connection");
            assertThat(second.getResends()).isEqualTo(1);
            assertThat(s.requests.get()).isEqualTo(3);
        }
    }

    /** An error inside a 200 stream is the server's, with its message: not a protocol fault of the client or the wire. */
    @Test
    void anErrorInsideTheStreamIsAServerError() throws Exception {
        final HttpServer s = HttpFixtures.scripted(List.of("data: {\"choices\":[{\"delta\":{\"content\":\"Par\"}}]}\n\n",
                "data: {\"error\":{\"code\":500,\"message\":\"Failed to parse input at pos 3\",\"type\":\"server_error\"}}\n\n"), false);
        try {
            final RequestEvent e = one(HttpFixtures.target(HttpFixtures.baseUrl(s)), false);
            assertThat(e.getErrorClass()).isEqualTo("server_error");
            assertThat(e.getErrorMessage()).contains("Failed to parse input at pos 3").contains("(server_error)");
        } finally {
            s.stop(0);
        }
    }

    /** llama.cpp's context refusal counts the prompt: the event carries the server's count, not the intended one. */
    @Test
    void aRefusalThatCountsThePromptGivesThePromptTokens() throws Exception {
        final String body = "{\"error\":{\"code\":400,\"message\":\"request (2558 tokens) exceeds the available context size"
                + " (2048 tokens)\",\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":2558,\"n_ctx\":2048}}";
        try (RawServer s = new RawServer(n -> "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body)) {
            final RequestEvent e = one(HttpFixtures.target(s.baseUrl()), false);
            assertThat(e.getErrorClass()).isEqualTo("http_400");
            assertThat(e.getPromptTokens()).isEqualTo(2558);
            assertThat(e.getIntendedPromptTokens()).isNotEqualTo(2558);
        }
    }
}
