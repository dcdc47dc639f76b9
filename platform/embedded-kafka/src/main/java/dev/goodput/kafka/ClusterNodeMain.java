package dev.goodput.kafka;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * One node of an {@link EmbeddedCluster}, as a process of its own: arguments are its data folder,
 * the cluster id, its node id, broker and controller ports, the voters, then broker settings as
 * {@code key=value}. Prints {@link #READY} once it answers, and stops cleanly when its standard
 * input closes; a SIGKILL stops it as a crash does.
 */
public final class ClusterNodeMain {
    /** The line a node prints once it answers. */
    static final String READY = "goodput-cluster-node-ready";

    private ClusterNodeMain() {
    }

    public static void main(String[] args) throws IOException {
        final Map<String, String> overrides = new HashMap<>();
        for (int i = 6; i < args.length; i++) {
            final int eq = args[i].indexOf('=');
            overrides.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.startClusterNode(Path.of(args[0]), args[1], Integer.parseInt(args[2]),
                Integer.parseInt(args[3]), Integer.parseInt(args[4]), args[5], overrides)) {
            System.out.println(READY + " " + kafka.bootstrapServers());
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the parent to close our standard input
            }
        }
    }
}
