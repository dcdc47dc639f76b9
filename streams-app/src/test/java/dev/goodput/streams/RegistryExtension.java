package dev.goodput.streams;

import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An in-process schema registry for a test class, started before its tests and closed after them:
 * {@code @RegisterExtension static final RegistryExtension REGISTRY = new RegistryExtension();}.
 */
final class RegistryExtension implements BeforeAllCallback, AfterAllCallback {
    private InProcessSchemaRegistry server;
    private SchemaRegistryClient client;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = InProcessSchemaRegistry.inMemory(0);
        client = new SchemaRegistryClient(server.url());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        server.close();
    }

    SchemaRegistryClient client() {
        return client;
    }
}
