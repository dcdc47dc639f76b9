package dev.goodput.serde;

import dev.goodput.registry.SchemaRegistryClient;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** Builds wire-format Avro serdes bound to one registry client. */
public final class AvroSerdes {
    private final SchemaRegistryClient registry;

    public AvroSerdes(SchemaRegistryClient registry) {
        this.registry = registry;
    }

    public SchemaRegistryClient registry() {
        return registry;
    }

    public <T extends SpecificRecord> Serde<T> value(Class<T> type) {
        return Serdes.serdeFrom(new AvroSerializer<>(registry, false), new AvroDeserializer<>(registry, type));
    }

    public <T extends SpecificRecord> Serde<T> key(Class<T> type) {
        return Serdes.serdeFrom(new AvroSerializer<>(registry, true), new AvroDeserializer<>(registry, type));
    }
}
