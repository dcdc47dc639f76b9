package dev.goodput.capture;

import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The generator's HTTP clients: {@link NioHttpClient} for plain-HTTP targets (one selector thread,
 * exact read timing), and Jetty's client for TLS targets, tuned for thousands of concurrent streams: no per-destination connection cap
 * below the load (the default of 64 would queue requests inside the client and hide it), TLS with
 * the JVM's trust store, and no automatic retries or redirects (a benchmark must see every failure).
 */
public final class StreamingClient implements AutoCloseable {

    private final HttpClient http;
    private final NioHttpClient nio;
    private final TimingPriority priority;

    /** A client whose timing threads keep the normal scheduling class (tests, tools). */
    public StreamingClient(int maxConnections) {
        this(maxConnections, TimingPriority.NORMAL);
    }

    /**
     * @param priority scheduling class of the selector thread, and of the thread that dispatches
     *                 requests through this client (see {@link TimingPriority})
     */
    public StreamingClient(int maxConnections, TimingPriority priority) {
        this.priority = priority;
        this.nio = new NioHttpClient(maxConnections, priority);
        final ClientConnector connector = new ClientConnector();
        connector.setSslContextFactory(new SslContextFactory.Client());
        connector.setSelectors(1);
        final QueuedThreadPool threads = new QueuedThreadPool(Math.max(16, Math.min(200, maxConnections / 4 + 8)), 4);
        threads.setName("goodput-http");
        threads.setDaemon(true);
        this.http = new HttpClient(new HttpClientTransportOverHTTP(connector));
        http.setExecutor(threads);
        http.setMaxConnectionsPerDestination(maxConnections);
        http.setMaxRequestsQueuedPerDestination(Math.max(1024, maxConnections * 4));
        http.setFollowRedirects(false);
        http.setUserAgentField(null);
        http.setConnectTimeout(10_000);
        try {
            http.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the HTTP client: " + e.getMessage(), e);
        }
    }

    /** The scheduling class the dispatching thread takes while it sends through this client. */
    public TimingPriority timingPriority() {
        return priority;
    }

    public HttpClient http() {
        return http;
    }

    /** The selector client used for plain-HTTP targets. */
    public NioHttpClient nio() {
        return nio;
    }

    @Override
    public void close() {
        nio.close();
        try {
            http.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the HTTP client failed", e);
        }
    }
}
