package dev.goodput.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.goodput.capture.RequestExecution;
import dev.goodput.capture.StallWatch;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;

/**
 * One exchange through the proxy: the upstream's status, headers and body bytes go to the client
 * as they arrive, and, for an observed call, to its observer too. A client that goes away cancels
 * the upstream request (the observer records it abandoned); an upstream that cannot be reached
 * gives the client a 502 with the reason.
 */
final class Forwarder implements Response.Listener {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpExchange ex;
    private final CountDownLatch done = new CountDownLatch(1);
    private OutputStream out;
    private RequestExecution exec;
    private boolean stream;
    private boolean chat;
    private int status;
    private boolean clientGone;
    /** A non-streamed observed answer, kept whole to be read at its end. */
    private ByteArrayOutputStream whole;
    private long lastReadNanos;
    /** Set when the proxy asked for usage on the client's behalf: the usage event is kept from the client. */
    private UsageStripper stripper;
    private StallWatch stall;

    Forwarder(HttpExchange ex) {
        this.ex = ex;
    }

    /** Observes the exchange: a streamed one chunk by chunk, a non-streamed one as one chunk at its last byte. */
    void observe(RequestExecution observer, boolean streamed, boolean chatCall) {
        this.exec = observer;
        this.stream = streamed;
        this.chat = chatCall;
    }

    /** The upstream's stall timeout, from its response head on. */
    void watch(StallWatch watch) {
        this.stall = watch;
    }

    /** Keeps the usage-only event the proxy asked for from the client. */
    void stripUsage() {
        this.stripper = new UsageStripper();
    }

    void await() {
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void onBegin(Response response) {
        stall.headArrived();
        status = response.getStatus();
        if (exec != null) {
            exec.status(status);
        }
    }

    @Override
    public void onHeaders(Response response) {
        for (HttpField f : ProxyServer.endToEnd(response.getHeaders())) {
            ex.getResponseHeaders().add(f.getName(), f.getValue());
        }
        final long length = response.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
        try {
            // -1: no body; 0: chunked until the end; n: that many bytes
            final boolean noBody = status == 204 || status == 304 || "HEAD".equals(ex.getRequestMethod()) || length == 0;
            ex.sendResponseHeaders(status, noBody ? -1 : Math.max(0, length));
            out = ex.getResponseBody();
        } catch (IOException e) {
            clientLeft(response);
        }
    }

    @Override
    public void onContent(Response response, ByteBuffer content) {
        final long nanos = System.nanoTime();
        lastReadNanos = nanos;
        stall.read(nanos);
        // one copy of the read: the client's stream takes arrays, and a whole answer is kept from it
        final byte[] bytes = new byte[content.remaining()];
        content.duplicate().get(bytes);
        if (!clientGone && out != null) {
            final byte[] toClient = stripper != null && status == 200 ? stripper.feed(bytes) : bytes;
            try {
                if (toClient.length > 0) {
                    out.write(toClient);
                    out.flush();
                }
            } catch (IOException e) {
                clientLeft(response);
            }
        }
        if (exec == null) {
            return;
        }
        if (stream || status != 200) {
            exec.body(content.duplicate(), nanos);
        } else {
            if (whole == null) {
                whole = new ByteArrayOutputStream();
            }
            whole.writeBytes(bytes);
        }
    }

    private void clientLeft(Response response) {
        clientGone = true;
        if (exec != null) {
            exec.abandon();
        } else {
            response.abort(new IOException("the client went away"));
        }
    }

    @Override
    public void onComplete(Result result) {
        stall.done();
        try {
            if (out != null && !clientGone && stripper != null) {
                final byte[] rest = stripper.rest();
                if (rest.length > 0) {
                    out.write(rest);
                }
            }
            if (out == null && !clientGone) {
                // nothing came back from the upstream: say why
                final String reason = result.getFailure() == null ? "no response" : result.getFailure().toString();
                final byte[] body = ("{\"error\":{\"message\":" + JSON.writeValueAsString("goodput proxy: upstream failed: " + reason)
                        + ",\"type\":\"proxy_error\"}}").getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(502, body.length);
                ex.getResponseBody().write(body);
            }
        } catch (IOException ignored) {
            clientGone = true;
        } finally {
            ex.close();
        }
        if (exec != null) {
            if (!stream && status == 200 && whole != null && result.getFailure() == null) {
                exec.body(ByteBuffer.wrap(asStream(whole.toByteArray(), chat)), lastReadNanos);
            }
            exec.end(result.getFailure());
        }
        done.countDown();
    }

    /**
     * A whole (non-streamed) completion as the stream it stands for: one event carrying the answer,
     * its finish reason and usage, then {@code [DONE]}; its time is the answer's last byte.
     */
    static byte[] asStream(byte[] completion, boolean chat) {
        final ObjectNode event = JSON.createObjectNode();
        try {
            final JsonNode c = JSON.readTree(completion);
            final JsonNode choice = c.path("choices").path(0);
            final ObjectNode out = event.putArray("choices").addObject().put("index", 0);
            if (chat) {
                final ObjectNode delta = out.putObject("delta");
                final JsonNode message = choice.path("message");
                for (String k : new String[] {"content", "reasoning_content", "reasoning", "tool_calls"}) {
                    if (message.has(k) && !message.get(k).isNull()) {
                        delta.set(k, message.get(k));
                    }
                }
            } else {
                out.set("text", choice.path("text"));
            }
            out.set("finish_reason", choice.path("finish_reason"));
            if (c.has("usage")) {
                event.set("usage", c.get("usage"));
            }
            if (c.has("timings")) {
                event.set("timings", c.get("timings"));
            }
            return ("data: " + JSON.writeValueAsString(event) + "\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            // not JSON: handed on as it came, so the observer reports the protocol error
            return completion;
        }
    }
}
