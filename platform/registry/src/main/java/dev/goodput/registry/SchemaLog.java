package dev.goodput.registry;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

/** Where the in-process registry keeps its schemas and settings, so that ids survive a restart. */
interface SchemaLog extends AutoCloseable {

    /** Feeds every stored entry, oldest first, to the state being rebuilt. */
    void replay(Consumer<RegistryState.Version> schemas, BiConsumer<String, String> configs);

    void appendSchema(RegistryState.Version version);

    void appendConfig(String subjectOrNull, String level);

    @Override
    default void close() {
    }

    /** Keeps nothing: for unit tests and throw-away registries. */
    SchemaLog NONE = new SchemaLog() {
        @Override
        public void replay(Consumer<RegistryState.Version> schemas, BiConsumer<String, String> configs) {
        }

        @Override
        public void appendSchema(RegistryState.Version version) {
        }

        @Override
        public void appendConfig(String subjectOrNull, String level) {
        }
    };
}
