package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Properties;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka Streams properties the app runs with, and what a user's own override keeps. */
class StreamsPropertiesTest {

    @TempDir
    Path state;

    private Properties with(String... keyValues) {
        final Properties user = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            user.put(keyValues[i], keyValues[i + 1]);
        }
        return StreamsApp.streamsProperties(user, "app", state);
    }

    @Test
    void exactlyOnceOutputLingersHalfTheCommitInterval() {
        assertThat(with().getProperty("producer.linger.ms")).isEqualTo("100");
        assertThat(with("commit.interval.ms", "1000").getProperty("producer.linger.ms")).isEqualTo("500");
        assertThat(with("commit.interval.ms", "4").getProperty("producer.linger.ms")).isEqualTo("5");
    }

    @Test
    void aCommitIntervalThatIsNotANumberIsLeftForKafkaStreamsToRefuse() {
        final Properties p = with("commit.interval.ms", "soon", "bootstrap.servers", "localhost:9092");
        assertThat(p.getProperty("producer.linger.ms")).isEqualTo("5");
        assertThatThrownBy(() -> new StreamsConfig(p)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("commit.interval.ms");
    }

    @Test
    void atLeastOnceOutputIsSentAtOnce() {
        assertThat(with("processing.guarantee", "at_least_once").getProperty("producer.linger.ms")).isEqualTo("5");
    }

    @Test
    void aUsersLingerWinsWithOrWithoutThePrefix() {
        assertThat(with("linger.ms", "7").getProperty("producer.linger.ms")).isNull();
        assertThat(with("linger.ms", "7").getProperty("linger.ms")).isEqualTo("7");
        assertThat(with("producer.linger.ms", "9").getProperty("producer.linger.ms")).isEqualTo("9");
    }

    @Test
    void outputIsCompressedUnlessTheUserSaysOtherwise() {
        assertThat(with().getProperty("producer.compression.type")).isEqualTo("lz4");
        assertThat(with("compression.type", "zstd").getProperty("producer.compression.type")).isNull();
        assertThat(with("producer.compression.type", "none").getProperty("producer.compression.type")).isEqualTo("none");
    }

    @Test
    void outputGoesInLargeBatchesUnlessTheUserSaysOtherwise() {
        assertThat(with().getProperty("producer.batch.size")).isEqualTo(Integer.toString(256 * 1024));
        assertThat(with("batch.size", "16384").getProperty("producer.batch.size")).isNull();
        assertThat(with("producer.batch.size", "1000").getProperty("producer.batch.size")).isEqualTo("1000");
    }

    @Test
    void theStoresCacheSoAHotEntryIsOneChangelogRecordPerCommit() {
        assertThat(Long.parseLong(with().getProperty(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG))).isPositive();
        assertThat(with(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0")
                .getProperty(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG)).isEqualTo("0");
    }
}
