package dev.goodput.spans;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.GZIPInputStream;

import com.google.protobuf.InvalidProtocolBufferException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.RequestEvent;
import dev.goodput.capture.RunIdentity;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;

/**
 * An OTLP/HTTP trace receiver ({@code POST /v1/traces}, binary protobuf, gzip or not), as an
 * OpenTelemetry collector's: each GenAI request span becomes a request event, a GenAI span that
 * cannot be judged is refused (to the DLQ, with its reason, and counted in the answer's
 * {@code partial_success}), and any other span is left alone. The sender always gets its answer:
 * a refusal is never an error of the export.
 */
public final class OtlpTraceReceiver implements AutoCloseable {
    /** Largest export body taken (as the proxy's request bodies): an exporter batches 512 spans by default. */
    static final int MAX_BODY = 64 << 20;

    /** Where spans go. */
    public interface Output {
        void request(RequestEvent event);

        void refused(SpanView span, byte[] wire, String reason, String message);
    }

    private final HttpServer server;
    private final ExecutorService threads;
    private final RunIdentity run;
    private final String scenario;
    private final Output output;
    private final LongAdder spans = new LongAdder();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder notGenAi = new LongAdder();
    private final LongAdder badExports = new LongAdder();
    private final Map<String, LongAdder> refused = new ConcurrentHashMap<>();

    public OtlpTraceReceiver(InetSocketAddress listen, RunIdentity run, String scenario, Output output) throws IOException {
        this.run = run;
        this.scenario = scenario;
        this.output = output;
        this.server = HttpServer.create(listen, 64);
        // a thread per export in progress: a slow sender (a large body on a slow link) never holds another's export
        this.threads = Executors.newCachedThreadPool(r -> {
            final Thread t = new Thread(r, "goodput-otlp");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.createContext("/v1/traces", this::traces);
        server.createContext("/", ex -> answer(ex, 404, "text/plain", utf8("OTLP/HTTP traces are taken at /v1/traces\n")));
        server.start();
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    private void traces(HttpExchange ex) throws IOException {
        try {
            export(ex);
        } catch (RuntimeException e) {
            // every export gets an answer: a failure of ours is a 500 that says what, never a dropped connection
            badExports.increment();
            answer(ex, 500, "text/plain", utf8("the export could not be taken: " + e + "\n"));
        } finally {
            ex.close();
        }
    }

    private void export(HttpExchange ex) throws IOException {
        if (!"POST".equals(ex.getRequestMethod())) {
            answer(ex, 405, "text/plain", utf8("POST an OTLP ExportTraceServiceRequest\n"));
            return;
        }
        final String type = String.valueOf(ex.getRequestHeaders().getFirst("Content-Type")).toLowerCase(Locale.ROOT);
        if (!type.startsWith("application/x-protobuf")) {
            badExports.increment();
            answer(ex, 415, "text/plain", utf8("only OTLP/HTTP binary protobuf is taken (Content-Type application/x-protobuf;"
                    + " OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf), got " + type + "\n"));
            return;
        }
        final ExportTraceServiceRequest request;
        try (InputStream body = body(ex)) {
            final byte[] bytes = body.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                badExports.increment();
                answer(ex, 413, "text/plain", utf8("an export of more than " + MAX_BODY + " bytes\n"));
                return;
            }
            request = ExportTraceServiceRequest.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            badExports.increment();
            answer(ex, 400, "text/plain", utf8("not an OTLP ExportTraceServiceRequest: " + e.getMessage() + "\n"));
            return;
        } catch (IOException e) {
            // a body that is not what its Content-Encoding says (a plain body sent as gzip), or cut short
            badExports.increment();
            answer(ex, 400, "text/plain", utf8("the body cannot be read as sent (Content-Encoding "
                    + ex.getRequestHeaders().getFirst("Content-Encoding") + "): " + e.getMessage() + "\n"));
            return;
        }
        long rejected = 0;
        String firstReason = null;
        for (OtlpSpans.Read read : OtlpSpans.read(request)) {
            spans.increment();
            final GenAiSpans.Mapped m = GenAiSpans.judged(GenAiSpans.map(read.view(), run, scenario), System.currentTimeMillis());
            if (m instanceof GenAiSpans.Accepted a) {
                accepted.increment();
                output.request(a.event());
            } else if (m instanceof GenAiSpans.Refused r) {
                rejected++;
                if (firstReason == null) {
                    firstReason = r.reason() + ": " + r.message();
                }
                refused.computeIfAbsent(r.reason(), k -> new LongAdder()).increment();
                output.refused(read.view(), read.wire(), r.reason(), r.message());
            } else {
                notGenAi.increment();
            }
        }
        final ExportTraceServiceResponse.Builder response = ExportTraceServiceResponse.newBuilder();
        if (rejected > 0) {
            response.setPartialSuccess(ExportTracePartialSuccess.newBuilder().setRejectedSpans(rejected)
                    .setErrorMessage(rejected + " GenAI span(s) refused, e.g. " + firstReason));
        }
        answer(ex, 200, "application/x-protobuf", response.build().toByteArray());
    }

    private static InputStream body(HttpExchange ex) throws IOException {
        final InputStream in = ex.getRequestBody();
        return "gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding")) ? new GZIPInputStream(in) : in;
    }

    private static void answer(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Spans received in all. */
    public long spans() {
        return spans.sum();
    }

    /** Spans published as request events. */
    public long accepted() {
        return accepted.sum();
    }

    /** Spans that are not GenAI request spans. */
    public long notGenAi() {
        return notGenAi.sum();
    }

    /** Exports that were not OTLP protobuf, or too large. */
    public long badExports() {
        return badExports.sum();
    }

    /** GenAI spans refused, by reason. */
    public Map<String, Long> refused() {
        final Map<String, Long> m = new TreeMap<>();
        refused.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    @Override
    public void close() {
        server.stop(1);
        threads.shutdown();
    }
}
