package dev.goodput.runner;

import java.util.Arrays;
import java.util.ServiceLoader;

import dev.goodput.config.ConfigException;
import dev.goodput.config.Preflight;
import dev.goodput.config.Redact;
import dev.goodput.generator.ProduceCommand;
import dev.goodput.proxy.ProxyCommand;
import dev.goodput.simulator.SimulateCommand;
import dev.goodput.sink.PricesCommand;
import dev.goodput.sink.SinkCommand;
import dev.goodput.spans.SpansCommand;
import dev.goodput.streams.StreamsCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * The {@code goodput} command. Exit codes follow Kafka's tools: 0 done, 1 failed while running,
 * 2 refused at start (bad flag, bad contract or config).
 */
@Command(name = "goodput", mixinStandardHelpOptions = true, version = "goodput 0.1.0",
        description = "Benchmarks LLM inference by goodput and cost per successful token, on Kafka.",
        subcommands = {DemoCommand.class, BrokerCommand.class, RegistryCommand.class, ReportCommand.class, CompareCommand.class, ProduceCommand.class, ProxyCommand.class, SpansCommand.class, SimulateCommand.class, StreamsCommand.class, SinkCommand.class, PricesCommand.class, ReplayCommand.class, TopicsCommand.class})
public final class Main {

    public static final int EXIT_FAILED = 1;
    public static final int EXIT_REFUSED = 2;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** The command line, for parsing without running (the compose check uses it). */
    static CommandLine commandLine() {
        final CommandLine cli = new CommandLine(new Main());
        for (CommandSet set : ServiceLoader.load(CommandSet.class)) {
            set.commands().forEach(c -> cli.addSubcommand(c));
        }
        return cli;
    }

    private static volatile String invocation;

    /** The command line being run, as a user would type it (for a report's provenance). */
    static String invocation() {
        return invocation;
    }

    public static int run(String... args) {
        // recorded in reports: credentials in URLs and header values never are
        invocation = "./goodput " + String.join(" ", Redact.args(Arrays.asList(args)).stream()
                .map(a -> a.isEmpty() || a.matches(".*[\\s'\"$`].*") ? "'" + a.replace("'", "'\\''") + "'" : a).toList());
        final CommandLine cli = commandLine();
        // a refused value: its message last and short, and where the flags are, not 100+ lines of usage
        cli.setParameterExceptionHandler((ex, given) -> {
            final CommandLine cmd = ex.getCommandLine();
            cmd.getErr().println("goodput: " + ex.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, cmd.getErr());
            cmd.getErr().println("(./" + cmd.getCommandSpec().qualifiedName(" ") + " --help lists every flag)");
            return EXIT_REFUSED;
        });
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof ConfigException ce) {
                cmd.getErr().println("goodput: " + ce.getMessage());
                return EXIT_REFUSED;
            }
            if (e instanceof Preflight.Unreachable u) {
                cmd.getErr().println("goodput: " + u.getMessage());
                return EXIT_FAILED;
            }
            if (e instanceof StartupException se) {
                cmd.getErr().println("goodput: " + se.getMessage());
                return se.exitCode();
            }
            cmd.getErr().println("goodput: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return EXIT_FAILED;
        });
        return cli.execute(args);
    }
}
