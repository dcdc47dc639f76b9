package dev.goodput.bench;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenEvent;
import dev.goodput.contract.Contract;
import dev.goodput.kafka.EmbeddedKafkaMain;
import dev.goodput.producer.Corpus;
import dev.goodput.producer.MicroClock;
import dev.goodput.producer.client.EventSink;
import dev.goodput.producer.client.RunIdentity;
import dev.goodput.producer.client.StreamingClient;
import dev.goodput.producer.client.Target;
import dev.goodput.producer.client.TimingPriority;
import dev.goodput.producer.load.LoadRun;
import dev.goodput.producer.load.Scenario;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.topics.Topics;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Measures the proxy: client-seen TTFT through it against direct, side by side in one run against
 * the simulator, at 100 and 1,000 concurrent streams; and chunks forwarded per second per core of
 * proxy CPU. The simulator, the broker and the proxy each run in a child JVM, so the proxy's CPU is
 * read from its own process ({@code /proc/<pid>/stat}); the load generator runs here. Run with
 * {@code ./goodput bench-proxy}. Prints its figures; asserts nothing.
 */
public final class ProxyBenchmark {

    private final PrintStream out;
    private final Path corpusFile;
    private final double seconds;
    private final TimingPriority priority;

    public ProxyBenchmark(PrintStream out, Path corpusFile, double seconds, TimingPriority priority) {
        this.out = out;
        this.corpusFile = corpusFile;
        this.seconds = seconds;
        this.priority = priority;
    }

    /** One phase's client-side figures. */
    private record Phase(long requests, long ok, Histogram ttft, long chunks, double wallS) {
    }

    public void run() throws Exception {
        final Corpus corpus = Corpus.load(corpusFile);
        final List<String> flags = ProducerBenchmark.childFlags();
        try (ChildJvm broker = ChildJvm.start(flags, EmbeddedKafkaMain.class.getName(), "bootstrap=");
             InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.value()))) {
                Topics.createMissing(admin, Topics.ALL, (short) 1);
            }
            // decode step 20 ms: 1,000 streams offer 50,000 chunks/s
            try (ChildJvm sim = ChildJvm.start(flags, "dev.goodput.producer.sim.SimMain", "port=", corpusFile.toString(), "4096", "20000", "0");
                 ChildJvm proxy = ChildJvm.start(flags, ProxyMain.class.getName(), "port=", "http://127.0.0.1:" + sim.value(),
                         broker.value(), registry.url())) {
                final String direct = "http://127.0.0.1:" + sim.value() + "/v1";
                final String through = "http://127.0.0.1:" + proxy.value() + "/v1";
                out.printf(Locale.ROOT, "simulator, broker and proxy in child JVMs; %d cores; %.0f s per phase%n",
                        Runtime.getRuntime().availableProcessors(), seconds);
                phase(through, corpus, 100, 5);
                phase(direct, corpus, 100, 5);
                for (int streams : new int[] {100, 1000}) {
                    final Phase d = phase(direct, corpus, streams, seconds);
                    final long cpu0 = cpuTicks(proxy.pid());
                    final Phase p = phase(through, corpus, streams, seconds);
                    final double proxyCpuS = (cpuTicks(proxy.pid()) - cpu0) / 100.0;
                    out.printf(Locale.ROOT, "%4d streams | direct: %6d ok, TTFT p50 %7.3f ms p99 %7.3f ms | through the proxy: %6d ok, "
                                    + "TTFT p50 %7.3f ms p99 %7.3f ms | p99 added %+7.3f ms | %8.0f chunks/s forwarded, proxy CPU %.2f cores, "
                                    + "%8.0f chunks/s per proxy core%n",
                            streams, d.ok(), d.ttft().getValueAtPercentile(50) / 1e3, d.ttft().getValueAtPercentile(99) / 1e3,
                            p.ok(), p.ttft().getValueAtPercentile(50) / 1e3, p.ttft().getValueAtPercentile(99) / 1e3,
                            (p.ttft().getValueAtPercentile(99) - d.ttft().getValueAtPercentile(99)) / 1e3,
                            p.chunks() / p.wallS(), proxyCpuS / p.wallS(), p.chunks() / Math.max(1e-9, proxyCpuS));
                }
            }
        }
    }

    private Phase phase(String url, Corpus corpus, int streams, double durationS) throws Exception {
        final Target target = new Target(url, true, "sim", null, Map.of(), "sim", Duration.ofSeconds(60), Duration.ofSeconds(30), false);
        final RunIdentity id = new RunIdentity("0".repeat(64), "bench", "sim", "sim", 1,
                new Contract.Decoding(0, 1, null, null, false), "contains", 1.0);
        final AtomicLong chunks = new AtomicLong();
        final AtomicLong ok = new AtomicLong();
        final EventSink count = new EventSink() {
            @Override
            public void token(TokenEvent event) {
                chunks.incrementAndGet();
            }

            @Override
            public void request(RequestEvent event) {
                if (event.getStatus() == dev.goodput.avro.RequestStatus.OK) {
                    ok.incrementAndGet();
                }
            }
        };
        try (StreamingClient http = new StreamingClient(4096, priority)) {
            final LoadRun run = new LoadRun(new LoadRun.Settings(target, id, new Scenario(32, 64, null, streams, "cold"), corpus, "bench",
                    "poisson", null, 0, durationS, null, 0, null, 1_000, 1, Duration.ofSeconds(3600)), MicroClock.system());
            final var summary = run.run(http, count, new PrintStream(OutputStream.nullOutputStream()), () -> null, chunks::get);
            return new Phase(summary.getRequests(), ok.get(), run.ttft(), chunks.get(), summary.getWallS());
        }
    }

    /** utime + stime of a process, in clock ticks (100 per second on Linux). */
    static long cpuTicks(long pid) throws java.io.IOException {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
