package dev.goodput.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.goodput.config.ClientConfig;
import dev.goodput.config.Connection;
import dev.goodput.config.Failover;
import dev.goodput.config.Replication;
import dev.goodput.topics.Topic;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code goodput topics}: how a deployment's cluster holds the topics Goodput uses (its own, every
 * replay's, the registry's, Kafka Streams' internal ones and the transaction log): partitions,
 * replicas and min.insync.replicas, each problem with its fix, and the failover allowance the
 * streams-app would add to its grace. Exit 1 when a topic is below what the cluster can give.
 */
@Command(name = "topics", mixinStandardHelpOptions = true,
        description = "Describe the topics Goodput uses on a cluster: replicas, min.insync.replicas, and what to mend.")
public final class TopicsCommand implements Callable<Integer> {

    @CommandLine.Mixin
    Connection connection;

    @Option(names = "--schemas-topic", defaultValue = "_schemas", description = "The registry's topic (default: ${DEFAULT-VALUE}).")
    String schemasTopic;

    @Override
    public Integer call() throws InterruptedException, ExecutionException, TimeoutException {
        final Properties client = connection.kafka(null);
        try (Admin admin = Admin.create(ClientConfig.forAdmin(client))) {
            final Set<String> all = admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                    .names().get(30, TimeUnit.SECONDS);
            final Set<String> ours = new TreeSet<>();
            for (String t : all) {
                if (ours(t) || t.equals(schemasTopic) || t.equals("__transaction_state") || t.equals("__consumer_offsets")) {
                    ours.add(t);
                }
            }
            final int brokers = Replication.brokers(admin);
            System.out.printf(Locale.ROOT, "cluster: %d broker(s); a broker's failover allowance added to the grace: %d s%n",
                    brokers, Failover.allowance(admin).toSeconds());
            final List<Replication.Held> held = ours.isEmpty() ? List.of() : Replication.describe(admin, ours);
            System.out.printf(Locale.ROOT, "%-48s %9s %18s%n", "topic", "replicas", "min.insync.replicas");
            held.forEach(h -> System.out.printf(Locale.ROOT, "%-48s %9d %18s%n", h.topic(), h.replicas(),
                    h.minInsyncReplicas() == null ? "-" : h.minInsyncReplicas().toString()));
            final List<String> problems = new ArrayList<>(Replication.problems(held, brokers));
            problems.forEach(p -> System.out.println("WARNING: " + p));
            System.out.println(held.size() + " topic(s), " + problems.size() + " problem(s)");
            return problems.isEmpty() ? 0 : Main.EXIT_FAILED;
        }
    }

    /** A topic of Goodput's: one of its named topics, a replay's copy of one, or a Kafka Streams topic of its apps. */
    static boolean ours(String name) {
        for (Topic<?> t : Topics.ALL) {
            if (name.equals(t.name()) || name.startsWith(t.name() + ".")) {
                return true;
            }
        }
        return name.startsWith("goodput-") && (name.endsWith("-changelog") || name.endsWith("-repartition"));
    }
}
