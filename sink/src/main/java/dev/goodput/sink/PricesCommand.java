package dev.goodput.sink;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;

import dev.goodput.avro.GpuPrice;
import dev.goodput.config.ClientConfig;
import dev.goodput.config.Preflight;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code goodput prices}: publishes a price file to the compacted gpu.prices topic, each version with its date. */
@Command(name = "prices", mixinStandardHelpOptions = true, description = "Publish dated GPU prices (config/prices.yaml) to gpu.prices.")
public final class PricesCommand implements Callable<Integer> {

    @Option(names = "--file", defaultValue = "config/prices.yaml", description = "Price file (default: ${DEFAULT-VALUE}).")
    Path file;

    @Option(names = "--bootstrap-server", description = "Kafka bootstrap servers.")
    String bootstrapServer;

    @Option(names = "--schema-registry", defaultValue = "http://127.0.0.1:8081", description = "Schema registry URL.")
    String registryUrl;

    @Option(names = "--producer.config", description = "Kafka producer properties file.")
    Path producerConfig;

    @Override
    public Integer call() {
        final List<GpuPrice> prices = PricesFile.load(file);
        final Properties client = ClientConfig.merge(producerConfig, System.getenv(),
                bootstrapServer == null ? Map.of() : Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServer),
                Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092"));
        Preflight.kafka(client, 10_000);
        final SchemaRegistryClient registry = new SchemaRegistryClient(registryUrl);
        Preflight.registry(registry);
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                client.getProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)))) {
            Topics.createMissing(admin, List.of(Topics.PRICES), (short) 1);
        }
        SinkCommand.publish(client, registry, Topics.PRICES.name(), prices);
        prices.forEach(p -> System.out.println("published " + p.getPriceKey() + " " + p.getUsdPerGpuHour() + " "
                + p.getCurrency() + "/GPU-hour from " + p.getEffectiveFromUs() + " (" + p.getSource() + ")"));
        return 0;
    }
}
