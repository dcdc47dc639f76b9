package dev.goodput.config;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;

/**
 * How long a cluster may hold a record back when one of its brokers dies: until the controller
 * fences the dead broker ({@code broker.session.timeout.ms}, 9 s by default) and its partitions'
 * leaders move, about a second more. A record delayed that long reaches the log that much later and
 * is stamped then; lateness is judged on log time, so a grace shorter than this turns a broker's
 * death into late refusals of requests nothing was wrong with. A single broker has no failover:
 * nothing to allow for (its restart is an outage, said elsewhere).
 */
public final class Failover {
    /** Kafka's default {@code broker.session.timeout.ms}. */
    public static final Duration KAFKA_DEFAULT_SESSION = Duration.ofSeconds(9);
    /** A leader election and the producers' metadata refresh after the fencing, measured at about a second here. */
    static final Duration ELECTION = Duration.ofSeconds(1);

    private Failover() {
    }

    /** The allowance for a cluster of {@code brokers} whose brokers are fenced after {@code session}. */
    public static Duration allowance(int brokers, Duration session) {
        return brokers < 2 ? Duration.ZERO : session.plus(ELECTION);
    }

    /**
     * The allowance of the cluster {@code admin} reaches: its brokers, and the session timeout its
     * brokers report (Kafka's default when they report none).
     */
    public static Duration allowance(Admin admin) {
        try {
            return described(admin);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing the cluster", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe the cluster: " + e.getMessage(), e);
        }
    }

    private static Duration described(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        final Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
        if (nodes.size() < 2) {
            return Duration.ZERO;
        }
        Duration session = KAFKA_DEFAULT_SESSION;
        final ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(nodes.iterator().next().id()));
        final Config c = admin.describeConfigs(List.of(broker)).all().get(30, TimeUnit.SECONDS).get(broker);
        final var entry = c == null ? null : c.get("broker.session.timeout.ms");
        if (entry != null && entry.value() != null) {
            session = Duration.ofMillis(Long.parseLong(entry.value()));
        }
        return allowance(nodes.size(), session);
    }
}
