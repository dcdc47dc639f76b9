package dev.goodput.generator;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import dev.goodput.avro.ServerMetrics;
import dev.goodput.capture.ServerMetricsSampler;
import dev.goodput.capture.Target;
import dev.goodput.capture.TargetFacts;
import dev.goodput.config.Durations;
import dev.goodput.config.Redact;
import dev.goodput.contract.Contract;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * How to reach the endpoint under test, the same on every command that sends load ({@code produce},
 * {@code demo}). Names of vLLM's {@code bench serve} and AIPerf are accepted where they mean the
 * same thing.
 */
public final class TargetOptions {

    /** Where the key is read when no flag names it: the variable OpenAI's clients and vLLM's bench read. */
    public static final String DEFAULT_API_KEY_ENV = "OPENAI_API_KEY";

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--target", description = "OpenAI-compatible API base URL, e.g. http://127.0.0.1:8000/v1 (vLLM,"
            + " SGLang, TGI, llama.cpp, Ollama); a query (?api-version=...) is kept on every request.")
    String target;

    @Option(names = {"--endpoint", "--endpoint-type"}, defaultValue = "chat",
            description = "chat (/chat/completions) or completions (/completions); vLLM's /v1/chat/completions and"
                    + " /v1/completions are read the same (default: ${DEFAULT-VALUE}).")
    String endpoint;

    @Option(names = {"--model", "-m"}, description = "Model name to request (default: the contract's model.name).")
    String model;

    @Option(names = "--api-key-env", description = "Environment variable holding the API key, sent as a bearer token"
            + " (default: " + DEFAULT_API_KEY_ENV + " when it is set). Never printed, logged, published or recorded.")
    String apiKeyEnv;

    @Option(names = "--api-key-file", description = "File holding the API key (instead of --api-key-env).")
    Path apiKeyFile;

    @Option(names = {"--header", "-H"}, description = "Extra request header, 'Name: value' or Name=value (repeatable);"
            + " values of credential headers are never printed or recorded.")
    List<String> headers = new ArrayList<>();

    @Option(names = "--target-id", description = "Deployment name on every event (default: host:port of the target).")
    String targetId;

    @Option(names = "--timeout", converter = Durations.Seconds.class, defaultValue = "120",
            description = "Per-request timeout (30, 30s, 2m; default: ${DEFAULT-VALUE} s).")
    double timeoutS;

    @Option(names = "--stall-timeout", converter = Durations.Seconds.class, defaultValue = "30",
            description = "A response silent this long once it has begun ends as TIMEOUT; the wait for its head (a"
                    + " server queueing the request) is TTFT, bounded by --timeout only (default: ${DEFAULT-VALUE} s).")
    double stallS;

    @Option(names = "--continuous-usage", description = "Ask for usage on every chunk (vLLM's continuous_usage_stats)"
            + " to count tokens per chunk.")
    boolean continuousUsage;

    @Option(names = "--skip-preflight", description = "Start the run without first checking the model list and"
            + " sending one test request.")
    boolean skipPreflight;

    @Option(names = "--server-metrics", description = "The engine's Prometheus endpoint, sampled during the run and kept on"
            + " llm.server-metrics (vLLM, SGLang and llama.cpp names): default the target's /metrics when it answers; none: off.")
    String serverMetrics;

    @Option(names = "--server-metrics-every", converter = Durations.Seconds.class, defaultValue = "5",
            description = "How often --server-metrics is sampled (default: ${DEFAULT-VALUE} s).")
    double serverMetricsEveryS;

    public boolean skipPreflight() {
        return skipPreflight;
    }

    /**
     * Samples the engine's own metrics for the run (the target's {@code /metrics} unless {@code
     * --server-metrics} names another or none), saying on {@code out} what it found; null when nothing.
     */
    public ServerMetricsSampler serverMetrics(Target t, String contractId, String runId, Consumer<ServerMetrics> sink,
                                              PrintStream out) {
        if ("none".equals(serverMetrics)) {
            return null;
        }
        if (!(serverMetricsEveryS > 0)) {
            throw refused("--server-metrics-every must be more than 0");
        }
        final URI uri;
        try {
            uri = serverMetrics != null ? URI.create(serverMetrics) : TargetFacts.root(t).resolve("metrics");
        } catch (IllegalArgumentException e) {
            throw refused("--server-metrics " + serverMetrics + " is not a URL");
        }
        final ServerMetricsSampler s = ServerMetricsSampler.start(uri, Duration.ofMillis(Math.round(serverMetricsEveryS * 1000)),
                contractId, runId, t.targetId(), sink);
        out.println(s == null ? "server metrics: none at " + uri + " (--server-metrics URL names the engine's endpoint)"
                : "server metrics: " + uri + " every " + serverMetricsEveryS + " s, kept on llm.server-metrics");
        return s;
    }

    /** The --target URL, or null. */
    public String url() {
        return target;
    }

    /** The target at {@code baseUrl}, or a usage error (exit 2) naming the flag. */
    public Target target(String baseUrl, Contract contract, String defaultTargetId) {
        final boolean chat = chat(endpoint);
        if (!(timeoutS > 0) || !(stallS > 0)) {
            throw refused("--timeout and --stall-timeout must be more than 0");
        }
        if (apiKeyEnv != null && apiKeyFile != null) {
            throw refused("give --api-key-env or --api-key-file, not both");
        }
        if (apiKeyEnv != null && System.getenv(apiKeyEnv) == null) {
            // a run without the key the user named would be refused by the target, or worse, counted as its failures
            throw refused("--api-key-env " + apiKeyEnv + ": that variable is not set (export it, or leave the flag out)");
        }
        final String keyFrom = apiKeyFile != null ? "file:" + apiKeyFile.toAbsolutePath()
                : apiKeyEnv != null ? apiKeyEnv
                : System.getenv(DEFAULT_API_KEY_ENV) != null ? DEFAULT_API_KEY_ENV : null;
        if (!baseUrl.contains("://")) {
            throw refused("--target " + Redact.url(baseUrl) + " has no scheme: give http://" + Redact.url(baseUrl)
                    + " (or https://)");
        }
        try {
            final URI u = URI.create(baseUrl);
            return new Target(baseUrl, chat, model != null ? model : contract.modelName(), keyFrom, headers(headers),
                    targetId != null ? targetId : defaultTargetId != null ? defaultTargetId : u.getHost() + ":" + u.getPort(),
                    Duration.ofMillis(Math.round(timeoutS * 1000)), Duration.ofMillis(Math.round(stallS * 1000)),
                    continuousUsage);
        } catch (IllegalArgumentException e) {
            throw refused(e.getMessage());
        }
    }

    private boolean chat(String e) {
        return switch (e.toLowerCase(Locale.ROOT)) {
            case "chat", "/chat/completions", "/v1/chat/completions", "openai-chat", "openai-chat-completions" -> true;
            case "completions", "/completions", "/v1/completions", "openai", "openai-completions" -> false;
            default -> throw refused("--endpoint must be chat or completions (or vLLM's /v1/chat/completions,"
                    + " /v1/completions), got " + e);
        };
    }

    /** Headers as curl and AIPerf write them ({@code 'Name: value'}) or as {@code Name=value}. */
    static Map<String, String> headers(List<String> given) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (String h : given) {
            final int at = Redact.headerSeparator(h);
            final String name = at <= 0 ? "" : h.substring(0, at).strip();
            if (name.isEmpty() || !name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
                throw new IllegalArgumentException("--header must be 'Name: value' or Name=value, got a header without"
                        + " a valid name");
            }
            out.put(name, h.substring(at + 1).strip());
        }
        return out;
    }

    private CommandLine.ParameterException refused(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
