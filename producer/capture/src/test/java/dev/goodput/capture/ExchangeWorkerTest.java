package dev.goodput.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.goodput.loop.MicroClock;
import org.junit.jupiter.api.Test;

class ExchangeWorkerTest {

    /** Records every callback with the thread it ran on. */
    private static class Recorder implements NioHttpClient.Exchange {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final CountDownLatch ended = new CountDownLatch(1);
        volatile String thread;

        @Override
        public void sent() {
            calls.add("sent");
        }

        @Override
        public void status(int code) {
            calls.add("status " + code);
        }

        @Override
        public void body(ByteBuffer bytes, long readNanos) {
            thread = Thread.currentThread().getName();
            final byte[] b = new byte[bytes.remaining()];
            bytes.get(b);
            calls.add("body " + new String(b, StandardCharsets.US_ASCII) + " @" + readNanos);
        }

        @Override
        public void end(Throwable failureOrNull) {
            calls.add("end " + (failureOrNull == null ? "ok" : failureOrNull.getMessage()));
            ended.countDown();
        }
    }

    @Test
    void deliversEachExchangesCallbacksInOrderOnItsOwnThreadWithCopiedBytes() throws Exception {
        final Recorder a = new Recorder();
        final Recorder b = new Recorder();
        try (ExchangeWorker worker = new ExchangeWorker("test-parse")) {
            final ByteBuffer reused = ByteBuffer.allocate(16);
            worker.status(a, 200);
            reused.put("one".getBytes(StandardCharsets.US_ASCII)).flip();
            worker.body(a, reused, 11);
            worker.status(b, 503);
            // the selector reuses its read buffer as soon as the round is handed over
            reused.clear();
            reused.put("two".getBytes(StandardCharsets.US_ASCII)).flip();
            worker.body(a, reused, 12);
            worker.flush();
            reused.clear();
            reused.put("xxx".getBytes(StandardCharsets.US_ASCII)).flip();
            worker.end(a, null);
            worker.end(b, new IOException("reset"));
            worker.flush();
            assertTrue(a.ended.await(10, TimeUnit.SECONDS));
            assertTrue(b.ended.await(10, TimeUnit.SECONDS));
        }
        assertEquals(List.of("status 200", "body one @11", "body two @12", "end ok"), a.calls);
        assertEquals(List.of("status 503", "end reset"), b.calls);
        assertEquals("test-parse", a.thread);
    }

    @Test
    void anObserversEndKeepsTheTimeItWasSeenAt() throws Exception {
        final long[] endNanos = {-1};
        // records the time it is given, then counts the latch down as any Recorder
        final Recorder a = new Recorder() {
            @Override
            public void end(Throwable failureOrNull, long nanos) {
                endNanos[0] = nanos;
                super.end(failureOrNull);
            }
        };
        try (ExchangeWorker worker = new ExchangeWorker("test-parse")) {
            worker.end(a, null, 42);
            worker.flush();
            assertTrue(a.ended.await(10, TimeUnit.SECONDS));
            assertEquals(42, endNanos[0], "timed when it was seen, not when the worker got to it");
        }
    }

    @Test
    void anObservedCallsCompletionIsTheEndItIsGiven() {
        final CollectingSink sink = new CollectingSink();
        final MicroClock clock = MicroClock.system();
        final RequestExecution e = RequestExecution.observing(HttpFixtures.spec("t-1", 4, clock.nowMicros()), HttpFixtures.RUN,
                HttpFixtures.target("http://127.0.0.1:1/v1"), clock, sink, r -> { }, c -> { });
        final long read = System.nanoTime();
        e.status(200);
        e.body(ByteBuffer.wrap("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n".getBytes(StandardCharsets.UTF_8)), read);
        e.end(null, read + 7_000_000);
        assertEquals(clock.micros(read + 7_000_000), dev.goodput.definitions.Micros.of(sink.requests.get(0).getCompletionTimeUs()));
        assertEquals(clock.micros(read), dev.goodput.definitions.Micros.of(sink.requests.get(0).getLastChunkTimeUs()));
    }

    @Test
    void closeDeliversWhatWasNotYetFlushed() {
        final Recorder a = new Recorder();
        final ExchangeWorker worker = new ExchangeWorker("test-parse");
        worker.status(a, 200);
        worker.end(a, null);
        worker.close();
        assertEquals(List.of("status 200", "end ok"), a.calls);
    }

    @Test
    void theBacklogCountsWhatIsNotYetDeliveredAndFallsAsTheWorkerCatchesUp() throws Exception {
        final Recorder a = new Recorder();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        try (ExchangeWorker worker = new ExchangeWorker("test-parse")) {
            assertEquals(0, worker.backlog());
            // the worker is held inside the first round's task: that round counts until it returns
            worker.task(() -> {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            worker.status(a, 200);
            worker.flush();
            assertTrue(entered.await(10, TimeUnit.SECONDS));
            assertEquals(2, worker.backlog());
            worker.body(a, ByteBuffer.wrap("one".getBytes(StandardCharsets.US_ASCII)), 1);
            assertEquals(3, worker.backlog(), "this round's callbacks count before they are handed over");
            worker.end(a, null);
            worker.flush();
            assertEquals(4, worker.backlog());
            release.countDown();
            assertTrue(a.ended.await(10, TimeUnit.SECONDS));
            // the count falls after the round's last callback returns
            final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (worker.backlog() > 0 && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertEquals(0, worker.backlog());
        }
    }
}
