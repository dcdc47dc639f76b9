package dev.goodput.bench.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.goodput.assembly.log.Driver;
import dev.goodput.assembly.log.Event;
import dev.goodput.assembly.log.Logs;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The request engine alone, one thread, no Kafka: a partition's log of {@link #EVENTS_PER_OP} or so
 * events (requests of {@link #chunks} chunks and their request events, as live load logs them: a
 * request started every 20 ms, a chunk every 20 ms, published 50 ms and 10 ms late, the two topics
 * interleaved), the chunks one a token event ({@link #runMs} 0) or in runs of 500 ms as the
 * producers send them, through a fresh engine over in-memory stores, with a heartbeat's watermark
 * every 256 records. One operation is the whole log; the command divides by its chunks and its
 * requests.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EngineBenchmark {

    /** About this many events an operation, whatever the chunks a request. */
    public static final int EVENTS_PER_OP = 51_200;

    @Param({"10", "50", "128"})
    public int chunks;

    @Param({"0", "500"})
    public long runMs;

    private List<Event> log;
    private Driver driver;

    /** Requests in one operation's log. */
    public static int requests(int chunks) {
        return EVENTS_PER_OP / (chunks + 1);
    }

    /** One operation's log. */
    public static List<Event> log(int chunks, long runMs) {
        final List<Logs.Plan> plans = new ArrayList<>();
        for (int k = 0; k < requests(chunks); k++) {
            plans.add(new Logs.Plan(chunks, 20L * k, 20, 50, 10, -1, false, Logs.Kind.NORMAL));
        }
        return Logs.build(plans, 1, false, runMs);
    }

    @Setup(Level.Trial)
    public void buildLog() {
        log = log(chunks, runMs);
    }

    @Setup(Level.Invocation)
    public void freshEngine() {
        driver = new Driver(false);
    }

    @Benchmark
    public long wholeLog() {
        int i = 0;
        for (Event e : log) {
            driver.process(e);
            if ((++i & 255) == 0) {
                driver.heartbeat();
            }
        }
        driver.heartbeat();
        if (driver.finished() != requests(chunks) || driver.refused() != 0) {
            throw new IllegalStateException(driver.finished() + " of " + requests(chunks) + " requests finished, "
                    + driver.refused() + " events refused: the benchmark's log is not what it means to measure");
        }
        return driver.finished();
    }
}
