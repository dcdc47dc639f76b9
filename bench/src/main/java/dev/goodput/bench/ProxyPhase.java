package dev.goodput.bench;

import java.util.HashMap;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import org.HdrHistogram.Histogram;

/**
 * One phase's client-side figures, and each process's CPU over it (cores): what the 2 cores were
 * asked for, since every process of the benchmark shares them. {@code firstWave}: TTFT of the
 * warm-up's requests, not compared.
 */
record ProxyPhase(long ok, Histogram ttft, Histogram firstWave, Histogram itl, long chunks, double wallS,
                  Map<String, RequestEvent> events, double simCores, double brokerCores, double proxyCores, double generatorCores, Map<String, Double> jvmThreads) {
    /** Proxy CPU seconds per forwarded chunk, in microseconds. */
    double cpuUsPerChunk() {
        return proxyCpuS() * 1e6 / Math.max(1, chunks);
    }

    double proxyCpuS() {
        return proxyCores * wallS;
    }

    /** This phase and {@code o}, measured apart, as one: histograms merged, counts and CPU seconds added. */
    ProxyPhase plus(ProxyPhase o) {
        final Histogram t = ttft.copy();
        t.add(o.ttft);
        final Histogram i = itl.copy();
        i.add(o.itl);
        final Histogram f = firstWave.copy();
        f.add(o.firstWave);
        final Map<String, RequestEvent> all = new HashMap<>(events);
        all.putAll(o.events);
        final double w = wallS + o.wallS;
        final Map<String, Double> threads;
        if (jvmThreads == null || o.jvmThreads == null) {
            threads = null;
        } else {
            threads = new HashMap<>();
            for (String kind : jvmThreads.keySet()) {
                threads.put(kind, (jvmThreads.get(kind) * wallS + o.jvmThreads.getOrDefault(kind, 0.0) * o.wallS) / w);
            }
        }
        return new ProxyPhase(ok + o.ok, t, f, i, chunks + o.chunks, w, all, (simCores * wallS + o.simCores * o.wallS) / w,
                (brokerCores * wallS + o.brokerCores * o.wallS) / w, (proxyCores * wallS + o.proxyCores * o.wallS) / w,
                (generatorCores * wallS + o.generatorCores * o.wallS) / w, threads);
    }
}
