package dev.goodput.proxy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import dev.goodput.capture.NioHttpClient;
import dev.goodput.capture.RequestExecution;

/**
 * One observed completions call, on the observing thread: it reads the client's request (off the
 * forwarding thread, which has sent it upstream already), then feeds the generator's own
 * {@link RequestExecution} the send, status, body bytes and end as they were read.
 */
final class Observation implements NioHttpClient.Exchange {

    private final ProxyServer proxy;
    private final boolean chat;
    private final long arrivalNanos;
    private final ClientIds ids;
    private final Map<String, String> credentials;
    private final Consumer<Throwable> cancel;
    private byte[] request;
    private JsonNode json;
    private RequestExecution exec;
    private boolean stream;
    private int status;
    /** A non-streamed answer, kept whole to be read at its end. */
    private ByteArrayOutputStream whole;
    private long lastReadNanos;

    /**
     * @param json   the request, when the forwarding thread has read it already (to ask for usage), else null
     * @param cancel what abandons the call upstream
     */
    Observation(ProxyServer proxy, byte[] request, JsonNode json, boolean chat, long arrivalNanos, ClientIds ids,
                Map<String, String> credentials, Consumer<Throwable> cancel) {
        this.ids = ids;
        this.proxy = proxy;
        this.request = request;
        this.json = json;
        this.chat = chat;
        this.arrivalNanos = arrivalNanos;
        this.credentials = credentials;
        this.cancel = cancel;
    }

    /** Reads the request and starts the observer; first of the calls. */
    void begin() {
        final JsonNode j = json != null ? json : ProxyServer.parse(request);
        request = null;
        json = null;
        stream = j.path("stream").asBoolean(false);
        exec = proxy.observer(j, chat, proxy.clock.micros(arrivalNanos), ids, credentials, cancel);
    }

    /** The request's first byte went upstream at {@code nanos}. */
    void sentAt(long nanos) {
        exec.sentAt(nanos);
    }

    @Override
    public void sent() {
        sentAt(System.nanoTime());
    }

    @Override
    public void resent(String reason) {
        exec.resent(reason);
    }

    @Override
    public void status(int code) {
        status = code;
        exec.status(code);
    }

    @Override
    public void body(ByteBuffer bytes, long readNanos) {
        lastReadNanos = readNanos;
        if (stream || status != 200) {
            exec.body(bytes, readNanos);
            return;
        }
        if (whole == null) {
            whole = new ByteArrayOutputStream();
        }
        whole.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
    }

    @Override
    public void end(Throwable failureOrNull) {
        end(failureOrNull, System.nanoTime());
    }

    @Override
    public void end(Throwable failureOrNull, long endNanos) {
        if (!stream && status == 200 && whole != null && failureOrNull == null) {
            exec.body(ByteBuffer.wrap(Forwarder.asStream(whole.toByteArray(), chat)), lastReadNanos);
        }
        exec.end(failureOrNull, endNanos);
    }
}
