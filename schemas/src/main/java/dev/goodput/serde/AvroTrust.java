package dev.goodput.serde;

import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.avro.util.ClassSecurityValidator;

/**
 * Avro 1.12 refuses to instantiate classes outside a trusted list, generated classes included.
 * Trusting this project's generated package in code spares every user and test a system property.
 */
final class AvroTrust {
    private static final String GENERATED_PACKAGE = "dev.goodput.avro.";
    private static final AtomicBoolean DONE = new AtomicBoolean();

    private AvroTrust() {
    }

    static void ensure() {
        if (DONE.compareAndSet(false, true)) {
            final ClassSecurityValidator.ClassSecurityPredicate previous = ClassSecurityValidator.getGlobal();
            ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(previous,
                    c -> c.getName().startsWith(GENERATED_PACKAGE)));
        }
    }
}
