package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.xml.XmlConfiguration;
import org.apache.logging.log4j.message.SimpleMessage;
import org.junit.jupiter.api.Test;

/**
 * The shipped log configuration (#61): Kafka Streams' ERROR lines for a stream thread that fails and
 * is replaced are left out, since FailurePolicy says it once at its true level; its other ERROR lines stay.
 */
class LogConfigTest {

    private static Configuration shipped() throws Exception {
        try (InputStream in = LogConfigTest.class.getResourceAsStream("/log4j2.xml")) {
            final Configuration c = new XmlConfiguration(new LoggerContext("check"), new ConfigurationSource(in));
            c.initialize();
            return c;
        }
    }

    private static Filter.Result decide(Configuration c, String logger, String message) {
        final LoggerConfig lc = c.getLoggerConfig(logger);
        assertThat(lc.getName()).as("the shipped file names %s", logger).isEqualTo(logger);
        final Filter f = lc.getFilter();
        return f == null ? Filter.Result.NEUTRAL : f.filter(null, Level.ERROR, null, new SimpleMessage(message), null);
    }

    @Test
    void aReplacedStreamThreadIsLoggedOnceByThePolicyNotAgainAsAnError() throws Exception {
        final Configuration c = shipped();
        assertThat(decide(c, "org.apache.kafka.streams.KafkaStreams",
                "stream-client [goodput-demo-1] Replacing thread in the streams uncaught exception handler")).isEqualTo(Filter.Result.DENY);
        assertThat(decide(c, "org.apache.kafka.streams.processor.internals.StreamThread", "stream-thread [t-1] Encountered the"
                + " following exception during processing and the thread is going to shut down: ")).isEqualTo(Filter.Result.DENY);
        assertThat(decide(c, "org.apache.kafka.streams.KafkaStreams", "stream-client [x] State transition from RUNNING to ERROR"))
                .isEqualTo(Filter.Result.NEUTRAL);
    }
}
