package dev.goodput.capture;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;

/**
 * A request sent through Jetty's client (TLS targets), reported to its exchange as the selector
 * client reports one, with the same two timeouts: the request timeout from the send, the stall
 * timeout between reads once the response head has come ({@link StallWatch}).
 */
final class JettyExchange implements Response.Listener {

    private final NioHttpClient.Exchange exchange;
    private final StallWatch stall;

    private JettyExchange(NioHttpClient.Exchange exchange, StallWatch stall) {
        this.exchange = exchange;
        this.stall = stall;
    }

    /** Sends a POST; returns what aborts it with a given cause. */
    static Consumer<Throwable> post(HttpClient http, Target target, Map<String, String> headers, byte[] body,
                                    NioHttpClient.Exchange exchange) {
        final Request request = http.newRequest(target.endpoint()).method(HttpMethod.POST)
                .timeout(target.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .idleTimeout(target.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .headers(h -> {
                    h.put(HttpHeader.ACCEPT, "text/event-stream");
                    headers.forEach(h::put);
                })
                .body(new BytesRequestContent("application/json", body))
                .onRequestBegin(r -> exchange.sent());
        request.send(new JettyExchange(exchange, new StallWatch(http.getScheduler(), target.stallTimeout().toMillis(),
                request::abort)));
        return request::abort;
    }

    @Override
    public void onBegin(Response response) {
        stall.headArrived();
        exchange.status(response.getStatus());
    }

    @Override
    public void onContent(Response response, ByteBuffer content) {
        final long now = System.nanoTime();
        stall.read(now);
        exchange.body(content, now);
    }

    @Override
    public void onComplete(Result result) {
        stall.done();
        exchange.end(result.getFailure());
    }
}
