package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.testing.SampleRecords;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * The OTLP push as a collector receives it: an HTTP receiver in the test decodes each export with
 * the official protobuf classes (opentelemetry-proto) and checks the instruments' names, units,
 * attributes, bucket boundaries, and that the histogram counts equal the verdicts recorded.
 */
class OtlpExportTest {

    private static final Contract CONTRACT = ContractLoader.load(Path.of("../config/contract.yaml"));

    @Test
    void theVerdictsArriveAtAnOtlpReceiverUnderOtelGenAiNamesWithTheirAttributes() throws Exception {
        final List<ExportMetricsServiceRequest> received = new CopyOnWriteArrayList<>();
        final Map<String, String> headers = new HashMap<>();
        final HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/v1/metrics", x -> {
            headers.put("content-type", x.getRequestHeaders().getFirst("Content-Type"));
            headers.put("authorization", x.getRequestHeaders().getFirst("Authorization"));
            received.add(ExportMetricsServiceRequest.parseFrom(x.getRequestBody().readAllBytes()));
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        receiver.start();
        try {
            final String base = "http://127.0.0.1:" + receiver.getAddress().getPort();
            try (OtlpExport otlp = OtlpExport.configured(null, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", base,
                    "OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20t0k", "OTEL_RESOURCE_ATTRIBUTES",
                    "deployment.environment.name=ci"), "goodput-sink")) {
                assertThat(otlp.endpoint()).isEqualTo(base + "/v1/metrics");
                final ClientMetrics m = new ClientMetrics(new PrometheusRegistry(), Map.of(CONTRACT.id(), CONTRACT)).alsoTo(otlp.meter());
                for (int i = 0; i < 25; i++) {
                    m.onVerdict(RequestVerdict.newBuilder(SampleRecords.verdict()).setContractId(CONTRACT.id()).setScenarioId("s1")
                            .setRequestId("r" + i).setStatus(i == 24 ? RequestStatus.ERROR : RequestStatus.OK)
                            .setErrorClass(i == 24 ? "http_503" : null).setTtftUs(i == 24 ? null : 50_000L + i * 1_000L)
                            .setE2eUs(i == 24 ? null : 900_000L).setTargetId("gpu-7.example:8000").setOperation("chat")
                            .setPromptTokens(100).setGood(i != 24).build());
                }
                otlp.flush();
            }
        } finally {
            receiver.stop(0);
        }
        assertThat(headers.get("content-type")).isEqualTo("application/x-protobuf");
        assertThat(headers.get("authorization")).isEqualTo("Bearer t0k");
        final Map<String, Metric> metrics = new HashMap<>();
        String serviceName = null;
        String environment = null;
        for (ExportMetricsServiceRequest r : received) {
            for (var rm : r.getResourceMetricsList()) {
                for (KeyValue kv : rm.getResource().getAttributesList()) {
                    if (kv.getKey().equals("service.name")) {
                        serviceName = kv.getValue().getStringValue();
                    } else if (kv.getKey().equals("deployment.environment.name")) {
                        environment = kv.getValue().getStringValue();
                    }
                }
                rm.getScopeMetricsList().forEach(sm -> sm.getMetricsList().forEach(x -> metrics.put(x.getName(), x)));
            }
        }
        assertThat(serviceName).isEqualTo("goodput-sink");
        assertThat(environment).isEqualTo("ci");
        final Metric ttfc = metrics.get("gen_ai.client.operation.time_to_first_chunk");
        assertThat(ttfc).isNotNull();
        assertThat(ttfc.getUnit()).isEqualTo("s");
        assertThat(ttfc.hasExponentialHistogram()).as("an exponential histogram").isTrue();
        final var point = ttfc.getExponentialHistogram().getDataPoints(0);
        assertThat(ttfc.getExponentialHistogram().getDataPointsCount()).isEqualTo(1);
        assertThat(point.getCount()).as("one observation per OK verdict").isEqualTo(24);
        // TTFTs 50..73 ms: the p99 (the 24th value, 73 ms) lies in a bucket (base^i, base^(i+1)] at most 2.2 % wide
        final double base = Math.pow(2, Math.pow(2, -point.getScale()));
        assertThat(base - 1).as("relative bucket width at scale " + point.getScale()).isLessThanOrEqualTo(0.022);
        long seen = 0;
        int bucket = -1;
        final var positive = point.getPositive();
        for (int k = 0; k < positive.getBucketCountsCount(); k++) {
            seen += positive.getBucketCounts(k);
            if (seen >= 24 && bucket < 0) {
                bucket = positive.getOffset() + k;
            }
        }
        assertThat(Math.pow(base, bucket)).isLessThan(0.073);
        assertThat(Math.pow(base, bucket + 1)).isGreaterThanOrEqualTo(0.073 - 1e-12);
        final Map<String, Object> attrs = new HashMap<>();
        point.getAttributesList().forEach(kv -> attrs.put(kv.getKey(), kv.getValue().hasIntValue()
                ? (Object) kv.getValue().getIntValue() : kv.getValue().getStringValue()));
        assertThat(attrs).containsEntry("gen_ai.operation.name", "chat").containsEntry("gen_ai.provider.name", "goodput-simulator")
                .containsEntry("gen_ai.request.model", CONTRACT.modelName()).containsEntry("server.address", "gpu-7.example")
                .containsEntry("server.port", 8000L).containsEntry("goodput.scenario", "s1")
                .containsEntry("goodput.contract", CONTRACT.id().substring(0, 12));
        assertThat(metrics.get("gen_ai.client.operation.duration").getUnit()).isEqualTo("s");
        final Metric tokens = metrics.get("gen_ai.client.token.usage");
        assertThat(tokens.getUnit()).isEqualTo("{token}");
        assertThat(tokens.getExponentialHistogram().getDataPointsList()).anySatisfy(p -> {
            assertThat(p.getAttributesList()).anySatisfy(kv -> {
                assertThat(kv.getKey()).isEqualTo("gen_ai.token.type");
                assertThat(kv.getValue().getStringValue()).isEqualTo("input");
            });
            assertThat(p.getCount()).isEqualTo(25);
        });
        final Metric requests = metrics.get("goodput.requests");
        assertThat(requests.getSum().getIsMonotonic()).isTrue();
        assertThat(requests.getSum().getDataPointsList()).anySatisfy(p -> {
            assertThat(p.getAsInt()).isEqualTo(1);
            assertThat(p.getAttributesList()).anySatisfy(kv -> {
                assertThat(kv.getKey()).isEqualTo("error.type");
                assertThat(kv.getValue().getStringValue()).isEqualTo("http_503");
            });
        });
    }

    @Test
    void aMalformedHeaderVariableIsRefusedWithItsName() {
        Assertions.assertThatThrownBy(() -> OtlpExport.configured(null, Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_HEADERS", "no-equals-sign"), "x"))
                .hasMessageContaining("OTEL_EXPORTER_OTLP_HEADERS").hasMessageContaining("key=value");
        assertThat(OtlpExport.configured(null, Map.of(), "x")).isNull();
        assertThat(OtlpExport.metricsPath("http://c:4318/")).isEqualTo("http://c:4318/v1/metrics");
    }
}
