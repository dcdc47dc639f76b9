package dev.goodput.config;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.AuthenticationException;

/** Start-up checks that turn an unreachable broker or registry into one line naming the address. */
public final class Preflight {

    private Preflight() {
    }

    /**
     * Fails with a one-line message when no broker answers within {@code timeoutMs}: at once when
     * every bootstrap address refuses the connection (nothing listens there), as an authentication
     * failure when the broker refuses the credentials, else after the timeout.
     */
    public static void kafka(Properties clientProps, long timeoutMs) {
        final Properties p = ClientConfig.forAdmin(clientProps);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        final String bootstrap = p.getProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
        final String refused = refusal(bootstrap);
        if (refused != null) {
            throw new Unreachable("Kafka at " + bootstrap + ": " + refused + " (check --bootstrap-server)");
        }
        try (Admin admin = Admin.create(p)) {
            admin.describeCluster().nodes().get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthenticationException a) {
                throw new Unreachable("Kafka at " + bootstrap + " refused the credentials: " + a.getMessage()
                        + " (check security.protocol, sasl.mechanism and sasl.jaas.config in the client properties)");
            }
            throw new Unreachable("Kafka at " + bootstrap + " did not answer: " + e.getCause().getMessage()
                    + " (check --bootstrap-server)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while waiting for Kafka at " + bootstrap);
        } catch (TimeoutException e) {
            throw new Unreachable("Kafka at " + bootstrap + " did not answer within " + timeoutMs + " ms (check "
                    + "--bootstrap-server; a listener that needs SASL or SSL does not answer a client whose "
                    + "security.protocol is " + p.getProperty("security.protocol", "PLAINTEXT") + ")");
        }
    }

    /**
     * Why no bootstrap address can be reached, when that is known at once (every address refuses
     * the connection, or no host name resolves); null when one accepts a connection or may still.
     */
    static String refusal(String bootstrap) {
        final List<String> reasons = new ArrayList<>();
        for (String hostPort : bootstrap.split(",")) {
            final String a = hostPort.trim();
            final int colon = a.lastIndexOf(':');
            if (a.isEmpty() || colon < 0) {
                return null;
            }
            final String host = a.substring(0, colon).replace("[", "").replace("]", "");
            final int port;
            try {
                port = Integer.parseInt(a.substring(colon + 1));
            } catch (NumberFormatException e) {
                return null;
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 3_000);
                return null;
            } catch (UnknownHostException e) {
                reasons.add(a + " is not a known host");
            } catch (ConnectException e) {
                reasons.add(a + " refused the connection (nothing listens there)");
            } catch (IOException e) {
                return null;
            }
        }
        return String.join("; ", reasons);
    }

    /** An address that does not answer at start. */
    public static final class Unreachable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Unreachable(String message) {
            super(message);
        }
    }
}
