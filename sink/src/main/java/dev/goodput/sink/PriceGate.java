package dev.goodput.sink;

import java.util.Locale;

import dev.goodput.avro.GpuPrice;
import dev.goodput.serde.WireFormatException;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Checks each price record where it is read from gpu.prices, before it is copied to every cost
 * task: a refused one goes to the DLQ once, with its position on gpu.prices and the reason; a good
 * one goes on with its key marked as a price.
 */
final class PriceGate implements Processor<String, byte[], String, Object> {

    static final String NAME = "price-gate";
    static final String STAGE = "sink/price-gate";

    private final String pricesTopic;
    private final Deserializer<GpuPrice> prices;
    private ProcessorContext<String, Object> context;

    PriceGate(String pricesTopic, Deserializer<GpuPrice> prices) {
        this.pricesTopic = pricesTopic;
        this.prices = prices;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        final GpuPrice p;
        try {
            p = prices.deserialize(pricesTopic, record.value());
        } catch (WireFormatException e) {
            dead(record, e.reason().name().toLowerCase(Locale.ROOT), e.getMessage());
            return;
        }
        if (p == null) {
            return;
        }
        final var problem = PriceCheck.problem(p);
        if (problem.isPresent()) {
            dead(record, problem.get(), "price record for " + p.getPriceKey() + " refused: " + problem.get());
            return;
        }
        context.forward(record.withKey(SinkTopology.PRICE_PREFIX + (record.key() == null ? "" : record.key()))
                .withValue((Object) record.value()));
    }

    private void dead(Record<String, byte[]> record, String reason, String message) {
        final var meta = context.recordMetadata();
        context.forward(new Record<String, Object>(record.key(), new DeadBytes(record.value()), record.timestamp(),
                DeadLetters.headers(STAGE, reason, message, meta.map(m -> m.topic()).orElse(pricesTopic),
                        meta.map(m -> m.partition()).orElse(-1), meta.map(m -> m.offset()).orElse(-1L))));
    }

    /** The original bytes of a refused record, for the DLQ sink. */
    record DeadBytes(byte[] value) {
    }
}
