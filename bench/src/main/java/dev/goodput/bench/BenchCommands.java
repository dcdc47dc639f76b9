package dev.goodput.bench;

import java.util.List;

import dev.goodput.runner.CommandSet;

/** Adds the benchmarks to {@code goodput} where this module is on the class path (./goodput, not the image). */
public final class BenchCommands implements CommandSet {
    @Override
    public List<Class<?>> commands() {
        return List.of(BenchProducerCommand.class, BenchProxyCommand.class, BenchStreamsCommand.class, BenchEngineCommand.class);
    }
}
