package dev.goodput.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * The selector client's connection reuse: a request on a kept-alive connection is written by the
 * thread that sends it, an idle connection the server closed is not used again, and requests sent
 * from several threads at once each end exactly once.
 */
class NioHttpClientTest {

    /** A blocking HTTP/1.1 server answering "ok" with keep-alive; optionally closing each connection after its first response. */
    private static final class TinyServer implements AutoCloseable {
        final ServerSocket socket;
        final AtomicInteger accepted = new AtomicInteger();
        final boolean closeAfterResponse;
        private final List<Socket> open = new ArrayList<>();

        TinyServer(boolean closeAfterResponse) throws IOException {
            this.closeAfterResponse = closeAfterResponse;
            this.socket = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
            final Thread t = new Thread(this::acceptLoop, "tiny-server");
            t.setDaemon(true);
            t.start();
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/v1/completions");
        }

        private void acceptLoop() {
            while (!socket.isClosed()) {
                try {
                    final Socket s = socket.accept();
                    accepted.incrementAndGet();
                    synchronized (open) {
                        open.add(s);
                    }
                    final Thread t = new Thread(() -> serve(s), "tiny-conn");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket s) {
            try (s; InputStream in = new BufferedInputStream(s.getInputStream()); OutputStream out = s.getOutputStream()) {
                while (true) {
                    int length = -1;
                    String line;
                    while (!(line = readLine(in)).isEmpty()) {
                        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                            length = Integer.parseInt(line.substring(15).trim());
                        }
                    }
                    in.readNBytes(length);
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    if (closeAfterResponse) {
                        Thread.sleep(50);
                        return;
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the client went away
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private static String readLine(InputStream in) throws IOException {
            final StringBuilder sb = new StringBuilder();
            int b;
            while ((b = in.read()) != '\n') {
                if (b < 0) {
                    throw new IOException("closed");
                }
                if (b != '\r') {
                    sb.append((char) b);
                }
            }
            return sb.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            synchronized (open) {
                for (Socket s : open) {
                    s.close();
                }
            }
        }
    }

    /** Records what the client reports; completes once, and counts any further ending. */
    private static final class Recorder implements NioHttpClient.Exchange {
        final CompletableFuture<Throwable> ended = new CompletableFuture<>();
        final AtomicInteger ends = new AtomicInteger();
        final StringBuilder body = new StringBuilder();
        volatile Thread sentOn;
        volatile int status;

        @Override
        public void sent() {
            sentOn = Thread.currentThread();
        }

        @Override
        public void status(int code) {
            status = code;
        }

        @Override
        public void body(ByteBuffer bytes, long readNanos) {
            while (bytes.hasRemaining()) {
                body.append((char) bytes.get());
            }
        }

        @Override
        public void end(Throwable failureOrNull) {
            ends.incrementAndGet();
            ended.complete(failureOrNull);
        }
    }

    private static Recorder post(NioHttpClient client, URI uri) {
        final Recorder r = new Recorder();
        client.post(uri, Map.of(), "{}".getBytes(StandardCharsets.US_ASCII), 10_000, 10_000, r);
        return r;
    }

    @Test
    void aRequestOnAKeptAliveConnectionIsWrittenByTheSendingThread() throws Exception {
        try (TinyServer server = new TinyServer(false); NioHttpClient client = new NioHttpClient(16)) {
            final Recorder first = post(client, server.uri());
            assertNull(first.ended.get(5, TimeUnit.SECONDS));
            // a new connection is opened and written by the selector thread
            assertTrue(first.sentOn.getName().startsWith("goodput-nio-http"), first.sentOn.getName());

            final Recorder second = post(client, server.uri());
            assertNull(second.ended.get(5, TimeUnit.SECONDS));
            assertSame(Thread.currentThread(), second.sentOn);
            assertEquals(200, second.status);
            assertEquals("ok", second.body.toString());
            assertEquals(1, server.accepted.get(), "the second request reuses the first connection");
        }
    }

    @Test
    void anIdleConnectionTheServerClosedIsNotReused() throws Exception {
        try (TinyServer server = new TinyServer(true); NioHttpClient client = new NioHttpClient(16)) {
            assertNull(post(client, server.uri()).ended.get(5, TimeUnit.SECONDS));
            Thread.sleep(300);
            final Recorder second = post(client, server.uri());
            assertNull(second.ended.get(5, TimeUnit.SECONDS), "the closed connection was dropped, not written to");
            assertEquals("ok", second.body.toString());
            assertEquals(2, server.accepted.get());
        }
    }

    @Test
    void requestsSentFromSeveralThreadsEachEndExactlyOnce() throws Exception {
        final int threads = 4;
        final int perThread = 300;
        try (TinyServer server = new TinyServer(false); NioHttpClient client = new NioHttpClient(64)) {
            final List<Recorder> all = Collections.synchronizedList(new ArrayList<>());
            final CountDownLatch go = new CountDownLatch(1);
            final List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final Thread sender = new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < perThread; i++) {
                            final Recorder r = post(client, server.uri());
                            all.add(r);
                            if (i % 8 == 7) {
                                r.ended.get(5, TimeUnit.SECONDS);
                            }
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                sender.start();
                senders.add(sender);
            }
            go.countDown();
            for (Thread t : senders) {
                t.join(60_000);
            }
            assertEquals(threads * perThread, all.size());
            for (Recorder r : all) {
                assertNull(r.ended.get(10, TimeUnit.SECONDS));
                assertEquals("ok", r.body.toString());
            }
            Thread.sleep(100);
            for (Recorder r : all) {
                assertEquals(1, r.ends.get());
            }
            assertTrue(server.accepted.get() <= 64, "connections: " + server.accepted.get());
            assertTrue(all.stream().anyMatch(r -> !r.sentOn.getName().startsWith("goodput-nio-http")),
                    "some requests went out on kept-alive connections from their own thread");
        }
    }
}
