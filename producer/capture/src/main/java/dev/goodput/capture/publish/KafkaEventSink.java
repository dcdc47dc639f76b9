package dev.goodput.capture.publish;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.ServerMetrics;
import dev.goodput.avro.TokenEvent;
import dev.goodput.capture.EventSink;
import dev.goodput.records.TokenRuns;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.topics.Control;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes the generator's events to Kafka without ever blocking the timing path: HTTP threads
 * only offer events to a bounded buffer, and one publisher thread serializes and sends them with an
 * idempotent producer (acks=all, lz4, batching), so broker retries never duplicate an event. If the
 * buffer overflows or a send fails for good, the run is failed loudly rather than losing events.
 *
 * <p>Chunks go out in runs ({@link TokenRuns}): the publisher gathers a request's chunks into one
 * token event until the run is {@link #DEFAULT_RUN_INTERVAL} old (or {@value #MAX_RUN} chunks long),
 * and sends it at once when the request's request event comes. Each chunk keeps its own arrival
 * time, so no figure changes; what a run costs is live latency, at most the interval (plus the
 * publisher's 10 ms poll), and what it saves is a Kafka record, and a Kafka Streams record, per chunk.
 */
public final class KafkaEventSink implements EventSink, AutoCloseable {

    private static final int DRAIN_BATCH = 4096;
    private static final long POLL_NANOS = 10_000_000;
    private static final int BATCH_BYTES = 32 * 1024;
    /** Chunks in one run at most, so a fast stream's record stays a few KB. */
    static final int MAX_RUN = 256;
    /**
     * How long a request's chunks are gathered into one record. A run's first chunk reaches the log
     * this much later than it would alone, so it must stay well under the grace the streams-app
     * runs with (a tenth of the default 5 s); nothing the streams-app emits waits for it, since a
     * request counts only once its request event has come, and its last run goes at once with that.
     * 500 ms, not 100: a request of half a second or less (50 chunks at 10 ms) is one record rather
     * than five, and a long one a fifth as many; bench-streams measured what it gives and what it
     * does not (docs/benchmarks.md).
     */
    public static final Duration DEFAULT_RUN_INTERVAL = TokenRuns.PRODUCER_INTERVAL;

    private final KafkaProducer<String, SpecificRecord> producer;
    private final String tokensTopic;
    private final String requestsTopic;
    private final String runsTopic;
    private final ArrayBlockingQueue<ProducerRecord<String, SpecificRecord>> buffer;
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final LongAdder tokensOffered = new LongAdder();
    private final LongAdder requestsOffered = new LongAdder();
    private final LongAdder acked = new LongAdder();
    /** Events that never reached the broker: offered to a full buffer, or sent and failed for good. */
    private final LongAdder unpublished = new LongAdder();
    private final Thread publisher;
    private final Thread ticker;
    private final int capacity;
    private volatile boolean closing;
    /**
     * A send failed for want of the broker (a TimeoutException) and none succeeded since: closing then
     * counts what is queued as unpublished and sends no end-of-run marker, waits on no flush, each of
     * which would wait on the absent broker again (by Kafka's defaults, minutes to stop a proxy). */
    private volatile boolean unreachable;
    private volatile boolean ticking = true;
    private volatile Duration closeWindowsAfter = DEFAULT_CLOSE_AFTER;
    private final String runIdForMarker;
    private volatile long runIntervalNs = DEFAULT_RUN_INTERVAL.toNanos();
    /**
     * The open run of each request, by request id, with the time it opened, oldest first (a run is
     * always put after the others were): the publisher thread's alone.
     */
    private final Map<String, OpenRun> open = new LinkedHashMap<>();

    private record OpenRun(TokenEvent run, long openedNs) {
    }

    /**
     * How long the sink ticks on after the run's last event before its end-of-run marker: long
     * enough for the run's last window to close (the default window, 10 s, plus its grace, 5 s).
     */
    public static final Duration DEFAULT_CLOSE_AFTER = Duration.ofSeconds(15);
    /** How often every partition of both raw topics gets a tick ({@link Control}). */
    static final Duration TICK_EVERY = Duration.ofSeconds(1);

    public KafkaEventSink(Properties clientProps, SchemaRegistryClient registry, String tokensTopic,
                          String requestsTopic, String runsTopic, int bufferCapacity) {
        this(clientProps, registry, tokensTopic, requestsTopic, runsTopic, bufferCapacity, null);
    }

    public KafkaEventSink(Properties clientProps, SchemaRegistryClient registry, String tokensTopic,
                          String requestsTopic, String runsTopic, int bufferCapacity, String runId) {
        this.runIdForMarker = runId;
        this.tokensTopic = tokensTopic;
        this.requestsTopic = requestsTopic;
        this.runsTopic = runsTopic;
        this.buffer = new ArrayBlockingQueue<>(bufferCapacity);
        this.capacity = bufferCapacity;
        this.producer = new KafkaProducer<>(producerProps(clientProps), new StringSerializer(),
                new AvroSerializer<>(registry, false));
        this.publisher = new Thread(this::publish, "goodput-publisher");
        publisher.setDaemon(true);
        publisher.start();
        this.ticker = new Thread(this::tick, "goodput-ticker");
        ticker.setDaemon(true);
        ticker.start();
    }

    /**
     * How long to tick on after the last event before the end-of-run marker ({@link #DEFAULT_CLOSE_AFTER};
     * 0 for none): the streams-app closes a window once the log has passed its end plus the grace, so
     * this must cover the window and grace it runs with for the run's last windows to close.
     */
    public KafkaEventSink closeWindowsAfter(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("closing the windows takes 0 s or more");
        }
        this.closeWindowsAfter = d;
        return this;
    }

    /** How long a request's chunks are gathered into one run; 0 publishes each chunk as an event of its own. */
    public KafkaEventSink runInterval(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("the run interval is 0 s or more");
        }
        this.runIntervalNs = d.toNanos();
        return this;
    }

    private void tick() {
        while (ticking) {
            sendControl(Control.TICK);
            try {
                Thread.sleep(TICK_EVERY.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * A control record to every partition of both raw topics: its log time moves each partition's
     * event time, so windows close on quiet partitions too (see {@link Control}).
     */
    private void sendControl(String kind) {
        for (String topic : List.of(tokensTopic, requestsTopic)) {
            final int partitions;
            try {
                partitions = producer.partitionsFor(topic).size();
            } catch (RuntimeException e) {
                continue; // the connection watch says why; events keep their own retries
            }
            for (int p = 0; p < partitions; p++) {
                final ProducerRecord<String, SpecificRecord> r = new ProducerRecord<>(topic, p, (Long) null, (String) null, (SpecificRecord) null);
                r.headers().add(Control.HEADER, Control.utf8(kind));
                if (runIdForMarker != null && Control.END_OF_RUN.equals(kind)) {
                    r.headers().add(Control.RUN_ID, Control.utf8(runIdForMarker));
                }
                producer.send(r);
            }
        }
    }

    /** Defaults for a lossless, ordered, duplicate-free event stream; the user's properties win. */
    static Properties producerProps(Properties user) {
        final Properties p = new Properties();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        // Each lz4 batch allocates two 64 KiB blocks: at 5 ms linger that was two thirds of the generator's
        // allocation (profiled at 2,000 req/s). Events carry their own times, so waiting 50 ms costs no accuracy.
        p.put(ProducerConfig.LINGER_MS_CONFIG, "50");
        // Kafka's buffer pool keeps every freed batch buffer for reuse, up to buffer.memory, so the heap
        // holds the most batches ever open at once (a tick opens one per partition) times this size:
        // 256 KiB held 12 MB after one slow acknowledgement. 32 KiB still fills only after linger.ms
        // below ~100,000 events/s, far above what one generator publishes.
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(BATCH_BYTES));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "300000");
        p.putAll(user);
        return p;
    }

    @Override
    public void token(TokenEvent event) {
        // The record timestamp is the event's own time, so Kafka tools and Streams see event time.
        offer(new ProducerRecord<>(tokensTopic, null, event.getArrivalTimeUs().toEpochMilli(), event.getRequestId(), event));
        tokensOffered.increment();
    }

    @Override
    public void request(RequestEvent event) {
        offer(new ProducerRecord<>(requestsTopic, null, event.getCompletionTimeUs().toEpochMilli(), event.getRequestId(),
                event));
        requestsOffered.increment();
    }

    /** Queues a sample of the engine's own metrics for {@code topic}, keyed by its run, as events are queued. */
    public void serverMetrics(String topic, ServerMetrics sample) {
        offer(new ProducerRecord<>(topic, sample.getRunId(), sample));
    }

    /** Publishes a scenario's summary and waits for the broker's acknowledgement. */
    public void summary(RunSummary summary) {
        flush(Duration.ofMinutes(5));
        try {
            producer.send(new ProducerRecord<>(runsTopic, summary.getRunId(), summary)).get(5, TimeUnit.MINUTES);
        } catch (Exception e) {
            failure.compareAndSet(null, "publishing the run summary failed: " + e.getMessage());
        }
    }

    private void offer(ProducerRecord<String, SpecificRecord> r) {
        if (!buffer.offer(r)) {
            unpublished.increment();
            failure.compareAndSet(null, "the publish buffer (" + capacity + " events) overflowed: Kafka is not keeping up with the generator; the run is stopped rather than "
                    + "dropping events (raise --publish-buffer or check the broker)");
        }
    }

    private void publish() {
        final List<ProducerRecord<String, SpecificRecord>> batch = new ArrayList<>(DRAIN_BATCH);
        while (!closing || !buffer.isEmpty()) {
            try {
                if (buffer.drainTo(batch, DRAIN_BATCH) == 0) {
                    sendRuns(System.nanoTime() - runIntervalNs);
                    // Sleep rather than wait on the queue: a waiting taker makes every offer from the
                    // timing threads signal it, a wake-up per event. Polling costs at most 10 ms of the
                    // 50 ms linger; at 2 ms the wake-ups alone were 0.008-0.010 cores of an idle proxy.
                    LockSupport.parkNanos(POLL_NANOS);
                    if (Thread.currentThread().isInterrupted()) {
                        break;
                    }
                    continue;
                }
                for (ProducerRecord<String, SpecificRecord> r : batch) {
                    if (r.value() instanceof TokenEvent t && r.key() != null) {
                        gather(r.key(), t);
                    } else {
                        if (r.key() != null && r.topic().equals(requestsTopic)) {
                            // a request's last chunks go before its request event
                            final OpenRun last = open.remove(r.key());
                            if (last != null) {
                                send(last.run());
                            }
                        }
                        send(r, 1);
                    }
                }
                batch.clear();
                sendRuns(System.nanoTime() - runIntervalNs);
            } catch (RuntimeException e) {
                failure.compareAndSet(null, "publishing failed: " + e.getMessage());
                batch.clear();
            }
        }
        sendRuns(Long.MAX_VALUE);
    }

    /** Adds a chunk to its request's open run, or opens one; a run that is full, or of another run id, goes first. */
    private void gather(String requestId, TokenEvent chunk) {
        final OpenRun run = open.get(requestId);
        if (run != null && TokenRuns.size(run.run()) < MAX_RUN && run.run().getRunId().equals(chunk.getRunId())
                && run.run().getWarmup() == chunk.getWarmup()) {
            TokenRuns.append(run.run(), chunk);
            return;
        }
        if (run != null) {
            // removed, not replaced in place: the new run goes last, so the map stays oldest first
            open.remove(requestId);
            send(run.run());
        }
        if (runIntervalNs == 0) {
            send(chunk);
        } else {
            open.put(requestId, new OpenRun(chunk, System.nanoTime()));
        }
    }

    /**
     * Sends the runs opened at or before {@code openedBeforeNs} ({@code Long.MAX_VALUE}: all of them),
     * oldest first, stopping at the first younger one: called every 2 ms, it does not walk every
     * stream's run each time.
     */
    private void sendRuns(long openedBeforeNs) {
        for (Iterator<OpenRun> it = open.values().iterator(); it.hasNext(); ) {
            final OpenRun run = it.next();
            if (openedBeforeNs != Long.MAX_VALUE && run.openedNs() - openedBeforeNs > 0) {
                return;
            }
            it.remove();
            send(run.run());
        }
    }

    /** A run's record time is its last chunk's arrival: when the run was last observed, so event time as before. */
    private void send(TokenEvent run) {
        send(new ProducerRecord<>(tokensTopic, null, TokenRuns.lastArrivalUs(run) / 1_000, run.getRequestId(), run),
                TokenRuns.size(run));
    }

    /** Sends a record standing for {@code events} offered events (a run: its chunks). */
    private void send(ProducerRecord<String, SpecificRecord> r, int events) {
        if (closing && unreachable) {
            unpublished.add(events);
            return;
        }
        producer.send(r, (md, e) -> {
            if (e != null) {
                unpublished.add(events);
                unreachable |= e instanceof TimeoutException;
                failure.compareAndSet(null, "publishing to " + r.topic() + " failed: " + e.getMessage());
            } else {
                acked.add(events);
                unreachable = false;
            }
        });
    }

    /** Waits until everything offered so far has been acknowledged by the broker. */
    public boolean flush(Duration timeout) {
        return AckWait.until(() -> tokensOffered.sum() + requestsOffered.sum() - acked.sum(), () -> failure.get() != null,
                producer::flush, timeout);
    }

    /**
     * Events that will never be on the broker: those the full buffer could not take and those whose
     * send failed for good (the generator stops on the first; the proxy counts them and goes on).
     */
    public long unpublished() {
        return unpublished.sum();
    }

    /** Why the sink failed, or null. */
    public String failure() {
        return failure.get();
    }

    public long tokensOffered() {
        return tokensOffered.sum();
    }

    public long requestsOffered() {
        return requestsOffered.sum();
    }

    public long acked() {
        return acked.sum();
    }

    @Override
    public void close() {
        flush(Duration.ofMinutes(5));
        if (!closeWindowsAfter.isZero() && failure.get() == null) {
            // ticks go on while the run's last windows pass their grace, then the end-of-run marker
            try {
                Thread.sleep(closeWindowsAfter.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ticking = false;
        ticker.interrupt();
        try {
            ticker.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!unreachable) {
            sendControl(Control.END_OF_RUN);
            producer.flush();
        }
        closing = true;
        try {
            publisher.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(30));
    }
}
