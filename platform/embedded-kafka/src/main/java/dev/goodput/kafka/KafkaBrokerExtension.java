package dev.goodput.kafka;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that gives a test a real Kafka broker ({@link EmbeddedKafka}).
 *
 * <p>{@code @ExtendWith(KafkaBrokerExtension.class)} shares one broker across every test class of
 * the JVM (started on first use, stopped when the JVM's test plan ends), which keeps suites fast.
 * A test that restarts or stops the broker takes a broker of its own:
 * {@code @RegisterExtension static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();}
 * Tests receive the broker as an {@link EmbeddedKafka} parameter, or from {@link #kafka()}.
 */
public final class KafkaBrokerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(KafkaBrokerExtension.class);

    private final boolean dedicated;
    private EmbeddedKafka kafka;

    /** The shared broker; used by {@code @ExtendWith}. */
    public KafkaBrokerExtension() {
        this(false);
    }

    private KafkaBrokerExtension(boolean dedicated) {
        this.dedicated = dedicated;
    }

    /** A broker for one test class only, started before its tests and removed after them. */
    public static KafkaBrokerExtension dedicated() {
        return new KafkaBrokerExtension(true);
    }

    /** The broker, once {@code beforeAll} has run. */
    public EmbeddedKafka kafka() {
        if (kafka == null) {
            throw new IllegalStateException("the broker is started in beforeAll; register the extension as static");
        }
        return kafka;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (dedicated) {
            kafka = EmbeddedKafka.startTemporary();
        } else {
            kafka = context.getRoot().getStore(NS)
                    .getOrComputeIfAbsent("shared-broker", k -> new SharedBroker(EmbeddedKafka.startTemporary()),
                            SharedBroker.class)
                    .kafka;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (dedicated && kafka != null) {
            kafka.close();
            kafka = null;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
        return pc.getParameter().getType() == EmbeddedKafka.class;
    }

    @Override
    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) {
        return kafka();
    }

    /** Closes the shared broker when the root context closes. */
    private static final class SharedBroker implements ExtensionContext.Store.CloseableResource {
        final EmbeddedKafka kafka;

        SharedBroker(EmbeddedKafka kafka) {
            this.kafka = kafka;
        }

        @Override
        public void close() {
            kafka.close();
        }
    }
}
