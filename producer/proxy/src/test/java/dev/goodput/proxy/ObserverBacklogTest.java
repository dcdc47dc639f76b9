package dev.goodput.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenEvent;
import dev.goodput.capture.EventSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.Target;
import dev.goodput.capture.TimingPriority;
import dev.goodput.loop.MicroClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An observer that falls behind never holds traffic up, and its queue does not grow without bound:
 * past {@link ProxyServer#observerBacklog}, a new call is forwarded whole and counted unobserved,
 * while the calls already observed are published to their end.
 */
class ObserverBacklogTest {

    /** A sink whose request events wait until the test lets them through: the observer, stuck. */
    private static final class StuckSink implements EventSink {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<RequestEvent> requests = new CopyOnWriteArrayList<>();

        @Override
        public void token(TokenEvent event) {
        }

        @Override
        public void request(RequestEvent event) {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            requests.add(event);
        }
    }

    private HttpServer upstream;
    private ProxyServer proxy;
    private final StuckSink sink = new StuckSink();
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/v1/chat/completions", ex -> {
            ex.getRequestBody().readAllBytes();
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                for (String e : ProxyTest.STREAM) {
                    out.write(e.getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
        });
        upstream.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        upstream.start();
        final String url = "http://127.0.0.1:" + upstream.getAddress().getPort();
        final Target target = new Target(url + "/v1", true, "m", null, Map.of(), "upstream", Duration.ofSeconds(30),
                Duration.ofSeconds(10), false);
        proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), URI.create(url), null,
                HttpFixtures.RUN, "observed", target, sink, MicroClock.system(), TimingPriority.NORMAL);
    }

    @AfterEach
    void stop() {
        sink.release.countDown();
        proxy.close();
        upstream.stop(0);
    }

    private byte[] call() throws Exception {
        final HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.address().getPort()
                        + "/v1/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"stream\":true,\"messages\":[]}")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    @Test
    void aCallBeyondTheBacklogIsForwardedWholeAndCountedUnobserved() throws Exception {
        proxy.observerBacklog(0);
        final String whole = String.join("", ProxyTest.STREAM);
        // the first call is observed; its observer then sticks publishing its request event
        assertThat(new String(call(), StandardCharsets.UTF_8)).isEqualTo(whole);
        assertThat(sink.entered.await(30, TimeUnit.SECONDS)).isTrue();
        // with the observer behind (its end still undelivered), the next call goes through unobserved
        assertThat(new String(call(), StandardCharsets.UTF_8)).isEqualTo(whole);
        assertThat(proxy.observed()).isEqualTo(1);
        assertThat(proxy.unobserved()).isEqualTo(1);
        sink.release.countDown();
        // the observer catches up: the call it was observing is published whole, and calls are observed again
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (sink.requests.size() < 2 && System.nanoTime() < until) {
            if (proxy.observed() < 2 && sink.requests.size() == 1) {
                call();
            }
            Thread.sleep(10);
        }
        assertThat(sink.requests).hasSize(2);
        assertThat(proxy.observed()).isEqualTo(2);
    }
}
