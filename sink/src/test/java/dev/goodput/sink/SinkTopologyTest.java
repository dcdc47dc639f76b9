package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.Micros;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.testing.SampleRecords;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sink topology with explicit event times: the versioned price join and the cost records. */
class SinkTopologyTest {

    private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
    private static final String KEY = "cloud/h100";

    private InProcessSchemaRegistry registry;
    private TopologyTestDriver driver;
    private TestInputTopic<String, GpuPrice> prices;
    private TestInputTopic<String, WindowStats> windows;
    private TestOutputTopic<String, CostRecord> cost;
    private TestOutputTopic<String, byte[]> dlq;

    @BeforeEach
    void start() {
        registry = InProcessSchemaRegistry.inMemory(0);
        final AvroSerdes serdes = new AvroSerdes(new SchemaRegistryClient(registry.url()));
        final SinkConfig c = SinkConfig.defaults(Map.of("c".repeat(64), 1400.0));
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "sink-test");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(SinkTopology.build(c, serdes), p);
        prices = driver.createInputTopic(c.pricesTopic(), Serdes.String().serializer(), serdes.value(GpuPrice.class).serializer());
        windows = driver.createInputTopic(c.windowStatsTopic(), Serdes.String().serializer(),
                serdes.value(WindowStats.class).serializer());
        cost = driver.createOutputTopic(c.costTopic(), Serdes.String().deserializer(), serdes.value(CostRecord.class).deserializer());
        dlq = driver.createOutputTopic(c.dlqTopic(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
        registry.close();
    }

    private void price(double usd, Instant from) {
        final GpuPrice p = GpuPrice.newBuilder(SampleRecords.price()).setPriceKey(KEY).setUsdPerGpuHour(usd)
                .setEffectiveFromUs(from).setSource("list " + usd).setCpuUsdPerHour(0).setStorageUsdPerHour(0)
                .setNetworkUsdPerHour(0).setObservabilityUsdPerHour(0).setSupportUsdPerHour(0)
                .setColdStartGpuHoursPerHour(0).setWarmHeadroomFraction(0).build();
        prices.pipeInput(KEY, p, from.toEpochMilli());
    }

    /** A final 10 s window at 770 output tokens/s with 85% of tokens good. */
    private void window(Instant start, String priceKey) {
        windows.pipeInput("w", WindowStats.newBuilder(SampleRecords.windowStats()).setWindowStartUs(start)
                .setWindowEndUs(start.plusSeconds(10)).setIsFinal(true).setPriceKey(priceKey).setGpuCount(1)
                .setRequestsTotal(100).setGoodRequests(85).setOutputTokensOk(7_700).setOutputTokensGood(6_545).build(),
                start.plusSeconds(10).toEpochMilli());
    }

    /** A final window of scenario {@code scenario} whose requests were live from {@code fromUs} to {@code toUs}. */
    private void usedWindow(String scenario, Instant start, long fromUs, long toUs, long goodTokens) {
        windows.pipeInput("w", WindowStats.newBuilder(SampleRecords.windowStats()).setScenarioId(scenario).setWindowStartUs(start)
                .setWindowEndUs(start.plusSeconds(10)).setIsFinal(true).setPriceKey(KEY).setGpuCount(1)
                .setRequestsTotal(10).setGoodRequests(10).setOutputTokensOk(goodTokens).setOutputTokensGood(goodTokens)
                .setLiveStartUs(fromUs).setLiveEndUs(toUs).build(), start.plusSeconds(10).toEpochMilli());
    }

    private List<CostRecord> perWindow() {
        return cost.readValuesToList().stream().filter(r -> r.getSpan().equals("window")).toList();
    }

    @Test
    void theWorkedExampleThroughTheTopology() {
        price(6.50, T0.minusSeconds(3600));
        window(T0, KEY);
        final CostRecord r = perWindow().get(0);
        assertThat(r.getPriced()).isTrue();
        assertThat(r.getAchievedTokensPerS()).isEqualTo(770.0);
        assertThat(r.getComputeCostPerMUsd()).isCloseTo(2.3449, within(0.00005));
        assertThat(r.getCostPerSuccessfulMUsd()).isCloseTo(2.7587, within(0.00005));
        assertThat(r.getUtilization()).isCloseTo(0.55, within(1e-9));
        assertThat(r.getPriceEffectiveFromUs()).isEqualTo(T0.minusSeconds(3600));
        assertThat(r.getPriceSource()).isEqualTo("list 6.5");
    }

    @Test
    void aPriceChangeMidRunPricesEachWindowWithTheVersionInForce() {
        price(6.50, T0.minusSeconds(3600));
        price(13.00, T0.plusSeconds(20));
        for (int k = 0; k < 4; k++) {
            window(T0.plusSeconds(10L * k), KEY);
        }
        final List<CostRecord> r = perWindow();
        assertThat(r).extracting(CostRecord::getUsdPerGpuHour).containsExactly(6.5, 6.5, 13.0, 13.0);
        assertThat(r.get(3).getComputeCostPerMUsd()).isCloseTo(2 * 2.3449, within(0.0001));
        assertThat(r.get(1).getPriceEffectiveFromUs()).isEqualTo(T0.minusSeconds(3600));
        assertThat(r.get(2).getPriceEffectiveFromUs()).isEqualTo(T0.plusSeconds(20));
    }

    @Test
    void aWindowWithNoPriceInForceSaysSo() {
        price(6.50, T0.plusSeconds(3600));
        window(T0, KEY);
        window(T0, "unknown/gpu");
        final List<CostRecord> r = perWindow();
        assertThat(r).hasSize(2).allSatisfy(x -> {
            assertThat(x.getPriced()).isFalse();
            assertThat(x.getUnpricedReason()).contains("no price version");
            assertThat(x.getComputeCostPerMUsd()).isNull();
            assertThat(x.getCostPerSuccessfulMUsd()).isNull();
        });
    }

    /**
     * Two identical scenarios of 15.6 s, one placed across two windows and one across three, are
     * charged 15.6 s each and cost the same per good token; a window no request was live in (refusals
     * only) is charged nothing.
     */
    @Test
    void aScenarioIsChargedTheTimeItUsedNotTheWindowsItTouched() {
        price(6.50, T0.minusSeconds(3600));
        final long t0 = Micros.of(T0);
        // a: 2.0 s to 17.6 s, in windows 0 and 10; b: 28.0 s to 43.6 s, in windows 20, 30 and 40
        usedWindow("a", T0, t0 + 2_000_000, t0 + 10_000_000, 5_000);
        usedWindow("a", T0.plusSeconds(10), t0 + 10_000_000, t0 + 17_600_000, 4_500);
        usedWindow("b", T0.plusSeconds(20), t0 + 28_000_000, t0 + 30_000_000, 1_250);
        usedWindow("b", T0.plusSeconds(30), t0 + 30_000_000, t0 + 40_000_000, 6_250);
        usedWindow("b", T0.plusSeconds(40), t0 + 40_000_000, t0 + 43_600_000, 2_000);
        usedWindow("b", T0.plusSeconds(50), t0 + 50_000_000, t0 + 50_000_000, 0);
        final List<CostRecord> all = cost.readValuesToList();
        final List<CostRecord> w = all.stream().filter(r -> r.getSpan().equals("window")).toList();
        assertThat(w).extracting(CostRecord::getWindowSeconds).containsExactly(8.0, 7.6, 2.0, 10.0, 3.6, 0.0);
        assertThat(w.get(5).getCostPerSuccessfulMUsd()).isNull();
        assertThat(w.get(5).getHourlyCostUsd()).isEqualTo(w.get(4).getHourlyCostUsd());
        final List<CostRecord> minute = all;
        // the 1 m span ending with each scenario's last used window covers the whole scenario
        final CostRecord a = minute.stream().filter(x -> x.getSpan().equals("1m") && x.getScenarioId().equals("a")).reduce((x, y) -> y).get();
        final CostRecord b = minute.stream().filter(x -> x.getSpan().equals("1m") && x.getScenarioId().equals("b")
                && Micros.of(x.getWindowEndUs()) == t0 + 60_000_000).findFirst().get();
        assertThat(a.getWindowSeconds()).isCloseTo(15.6, within(1e-9));
        assertThat(b.getWindowSeconds()).isCloseTo(15.6, within(1e-9));
        assertThat(a.getCostPerSuccessfulMUsd()).isCloseTo(b.getCostPerSuccessfulMUsd(), within(1e-9));
    }

    @Test
    void rollingSpansSumCostsAndTokens() {
        price(6.50, T0.minusSeconds(3600));
        for (int k = 0; k < 8; k++) {
            window(T0.plusSeconds(10L * k), KEY);
        }
        final List<CostRecord> minute = cost.readValuesToList().stream().filter(x -> x.getSpan().equals("1m")).toList();
        final CostRecord last = minute.get(minute.size() - 1);
        // the last minute holds 6 windows of 10 s
        assertThat(last.getWindowSeconds()).isEqualTo(60.0);
        assertThat(last.getOutputTokensGood()).isEqualTo(6 * 6_545);
        assertThat(last.getCostPerSuccessfulMUsd()).isCloseTo(2.7587, within(0.00005));
    }

    @Test
    void badPricesGoToTheDlqWithTheReason() {
        prices.pipeInput(KEY, GpuPrice.newBuilder(SampleRecords.price()).setUsdPerGpuHour(-1).build());
        prices.pipeInput(KEY, GpuPrice.newBuilder(SampleRecords.price()).setCurrency("XYZ").build());
        prices.pipeInput(KEY, GpuPrice.newBuilder(SampleRecords.price()).setEffectiveFromUs(Instant.EPOCH).build());
        final var dead = dlq.readRecordsToList();
        assertThat(dead).extracting(d -> DeadLetters.header(d.headers(), DeadLetters.REASON))
                .containsExactly("negative_or_missing_price", "unknown_currency", "no_effective_date");
        // the position on gpu.prices, not on the internal repartition topic the sink read it from
        assertThat(dead).extracting(d -> DeadLetters.header(d.headers(), DeadLetters.SOURCE_TOPIC)).containsOnly("gpu.prices");
        assertThat(dead).extracting(d -> DeadLetters.header(d.headers(), DeadLetters.SOURCE_OFFSET)).containsExactly("0", "1", "2");
        assertThat(dead).extracting(d -> d.key()).containsOnly(KEY);
        window(T0, SampleRecords.price().getPriceKey());
        assertThat(perWindow().get(0).getPriced()).isFalse();
    }
}
