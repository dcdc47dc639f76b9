package dev.goodput.spans;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;

/** OTLP's trace export request, read with the official protobuf classes, as spans the mapping reads. */
final class OtlpSpans {

    /** A span as read, with the wire bytes a refusal sends to the DLQ. */
    record Read(SpanView view, byte[] wire) {
    }

    private OtlpSpans() {
    }

    static List<Read> read(ExportTraceServiceRequest request) {
        final List<Read> out = new ArrayList<>();
        for (ResourceSpans rs : request.getResourceSpansList()) {
            final Map<String, Object> resource = attributes(rs.getResource().getAttributesList());
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                for (Span span : ss.getSpansList()) {
                    out.add(new Read(view(span, resource), span.toByteArray()));
                }
            }
        }
        return out;
    }

    static SpanView view(Span span, Map<String, Object> resource) {
        final HexFormat hex = HexFormat.of();
        return new SpanView(hex.formatHex(span.getTraceId().toByteArray()), hex.formatHex(span.getSpanId().toByteArray()),
                span.getName(), span.getStartTimeUnixNano(), span.getEndTimeUnixNano(),
                span.getStatus().getCode() == Status.StatusCode.STATUS_CODE_ERROR, span.getStatus().getMessage(),
                attributes(span.getAttributesList()), resource);
    }

    /** Scalar attributes by key (arrays, maps and bytes are left out: no GenAI field read here is one). */
    static Map<String, Object> attributes(List<KeyValue> kvs) {
        final Map<String, Object> m = new LinkedHashMap<>();
        for (KeyValue kv : kvs) {
            final AnyValue v = kv.getValue();
            switch (v.getValueCase()) {
                case STRING_VALUE -> m.put(kv.getKey(), v.getStringValue());
                case INT_VALUE -> m.put(kv.getKey(), v.getIntValue());
                case DOUBLE_VALUE -> m.put(kv.getKey(), v.getDoubleValue());
                case BOOL_VALUE -> m.put(kv.getKey(), v.getBoolValue());
                default -> {
                    // not a scalar
                }
            }
        }
        return m;
    }
}
