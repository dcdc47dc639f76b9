package dev.goodput.sink;

import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;

import dev.goodput.avro.GpuPrice;
import dev.goodput.config.ClientConfig;
import dev.goodput.config.Connection;
import dev.goodput.config.Home;
import dev.goodput.registry.RegistryConnection;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code goodput prices}: publishes a price file to the compacted gpu.prices topic, each version with its date. */
@Command(name = "prices", mixinStandardHelpOptions = true, description = "Publish dated GPU prices (config/prices.yaml) to gpu.prices.")
public final class PricesCommand implements Callable<Integer> {

    @Option(names = "--file", defaultValue = Home.CONFIG + "prices.yaml", description = "Price file (default: ${DEFAULT-VALUE}).")
    Path file;

    @CommandLine.Mixin
    Connection connection;


    @Option(names = "--producer.config", description = "Kafka producer properties file.")
    Path producerConfig;

    @Override
    public Integer call() {
        final List<GpuPrice> prices = PricesFile.load(file);
        final Properties client = connection.kafka(producerConfig);
        final SchemaRegistryClient registry = RegistryConnection.open(connection, client);
        try (Admin admin = Admin.create(ClientConfig.forAdmin(client))) {
            Topics.createMissing(admin, List.of(Topics.PRICES), client);
        }
        SinkApp.publish(client, registry, Topics.PRICES.name(), prices);
        prices.forEach(p -> System.out.println("published " + p.getPriceKey() + " " + p.getUsdPerGpuHour() + " "
                + p.getCurrency() + "/GPU-hour from " + p.getEffectiveFromUs() + " (" + p.getSource() + ")"));
        return 0;
    }
}
