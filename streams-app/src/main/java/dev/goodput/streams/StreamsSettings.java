package dev.goodput.streams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.goodput.assembly.EngineSettings;
import dev.goodput.config.ConfigException;
import dev.goodput.config.Durations;
import dev.goodput.config.Settings;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.SloFlags;
import dev.goodput.records.TokenRuns;
import dev.goodput.topics.Topics;

/**
 * Everything the topology's behaviour depends on. Two runs with equal configs over equal input give
 * equal final records.
 *
 * @param contracts          known contracts by id; events of any other contract go to the DLQ
 * @param objectivesOverride SLO objectives replacing every contract's (what-if, --goodput), or empty
 * @param window             tumbling window size
 * @param grace              how long after a window's end events are still accepted (event time)
 * @param orphanExpiry       token events whose request event never comes are given up after this much log time
 *                           without another token event of theirs (60 s, past the producer's 30 s stall timeout);
 *                           until then they hold their windows open
 * @param liveInterval       wall-clock interval of live (non-final) window updates
 * @param upstreamPartitions partitions of the input topics: a window closes only when every one of them has passed it
 * @param topics             topic names
 */
public record StreamsSettings(Map<String, Contract> contracts, Optional<Contract.Objectives> objectivesOverride,
                            Duration window, Duration grace, Duration orphanExpiry,
                            Duration liveInterval, int upstreamPartitions, TopicNames topics, Selection selection) {

    /**
     * Which events a replay recomputes, and a quality floor replacing the contract's (what-if).
     * Events outside the selection are not results of this run and are skipped, not dead-lettered.
     *
     * @param runId          only this run's events, or null for all
     * @param fromUs         only requests completing at or after this, or Long.MIN_VALUE
     * @param toUs           only requests completing before this, or Long.MAX_VALUE
     * @param qualityFloor   a quality floor replacing the contract's, or null
     */
    public record Selection(String runId, long fromUs, long toUs, Double qualityFloor) {
        public static final Selection ALL = new Selection(null, Long.MIN_VALUE, Long.MAX_VALUE, null);

        public boolean takes(String run, long completionUs) {
            return (runId == null || runId.equals(run)) && completionUs >= fromUs && completionUs < toUs;
        }
    }

    /** Topic names: {@link Topics}' unless overridden (--topic, or a replay's own output topics). */
    public record TopicNames(String tokens, String requests, String verdicts, String windowStats, String dlq) {
        public static TopicNames defaults() {
            return new TopicNames(Topics.TOKENS.name(), Topics.REQUESTS.name(), Topics.VERDICTS.name(),
                    Topics.WINDOW_STATS.name(), Topics.DLQ.name());
        }

        /** A replay's: it reads the raw topics and writes its results next to the live ones, suffixed with its id. */
        public TopicNames suffixedResults(String id) {
            return new TopicNames(tokens, requests, verdicts + "." + id, windowStats + "." + id, dlq + "." + id);
        }
    }

    /** The window size every command defaults to (picocli default values must be constants). */
    public static final String DEFAULT_WINDOW = "10s";
    /** The grace every command defaults to. */
    public static final String DEFAULT_GRACE = "5s";
    /** How long, in log time after its last chunk, a request whose request event never came is held (the default). */
    public static final String DEFAULT_ORPHAN_EXPIRY = "60s";

    public static StreamsSettings defaults(Map<String, Contract> contracts) {
        return new StreamsSettings(contracts, Optional.empty(), Durations.parse(DEFAULT_WINDOW, "window"),
                Durations.parse(DEFAULT_GRACE, "grace"), Durations.parse(DEFAULT_ORPHAN_EXPIRY, "orphan-expiry"), Duration.ofSeconds(1), 1,
                TopicNames.defaults(), Selection.ALL);
    }

    /**
     * @throws IllegalArgumentException for a window that is not more than 0 or a negative grace (a
     *         zero window divided by zero, and a replay given one never ended)
     */
    public StreamsSettings withWindow(Duration size, Duration graceDuration) {
        Durations.positive(size, "--window");
        Durations.nonNegative(graceDuration, "--grace");
        return new StreamsSettings(contracts, objectivesOverride, size, graceDuration, orphanExpiry,
                liveInterval, upstreamPartitions, topics, selection);
    }

    /** The log time a request whose request event never came is held after its last chunk, then refused (orphaned). */
    public StreamsSettings withOrphanExpiry(Duration d) {
        Durations.positive(d, "--orphan-expiry");
        return new StreamsSettings(contracts, objectivesOverride, window, grace, d, liveInterval,
                upstreamPartitions, topics, selection);
    }

    public StreamsSettings withObjectives(Contract.Objectives o) {
        return new StreamsSettings(contracts, Optional.of(o), window, grace, orphanExpiry, liveInterval,
                upstreamPartitions, topics, selection);
    }

    public StreamsSettings withTopics(TopicNames t) {
        return new StreamsSettings(contracts, objectivesOverride, window, grace, orphanExpiry, liveInterval,
                upstreamPartitions, t, selection);
    }

    public StreamsSettings withLiveInterval(Duration d) {
        return new StreamsSettings(contracts, objectivesOverride, window, grace, orphanExpiry, d,
                upstreamPartitions, topics, selection);
    }

    public StreamsSettings withUpstreamPartitions(int n) {
        return new StreamsSettings(contracts, objectivesOverride, window, grace, orphanExpiry, liveInterval, n,
                topics, selection);
    }

    public StreamsSettings withSelection(Selection s) {
        return new StreamsSettings(contracts, objectivesOverride, window, grace, orphanExpiry, liveInterval,
                upstreamPartitions, topics, s);
    }

    public long windowUs() {
        return window.toNanos() / 1_000;
    }

    public long graceUs() {
        return grace.toNanos() / 1_000;
    }

    /** What the request engine is told: the windows, their grace, the orphan expiry. */
    public EngineSettings engine() {
        return new EngineSettings(window, grace, orphanExpiry);
    }

    /**
     * A grace under twice the producers' run interval ({@link TokenRuns#PRODUCER_INTERVAL}) is allowed
     * (other producers may send each chunk at once) but refuses chunks of this project's producers
     * as late once their run waited past it: said at start, with the fix.
     */
    public Optional<String> graceWarning() {
        final Duration floor = TokenRuns.PRODUCER_INTERVAL.multipliedBy(2);
        if (grace.compareTo(floor) >= 0) {
            return Optional.empty();
        }
        return Optional.of("grace " + Durations.text(grace) + " is under " + Durations.text(floor) + ": the generator and the proxy"
                + " send a request's chunks in runs of up to " + Durations.text(TokenRuns.PRODUCER_INTERVAL) + ", so chunks of"
                + " longer requests can reach the log past their window's end plus the grace and be refused as late;"
                + " use a grace of a few seconds (--grace, or GOODPUT_GRACE; default " + DEFAULT_GRACE + ")");
    }

    /** The objectives that judge a request of this contract. */
    public Contract.Objectives objectives(Contract c) {
        return objectivesOverride.orElse(c.objectives());
    }

    /** The keys of the streams-app's settings ({@code --settings} file, {@code GOODPUT_<KEY>}, flags). */
    public static final Set<String> KEYS = Set.of("window", "grace", "orphan-expiry", "goodput", "topic.tokens", "topic.requests",
            "topic.verdicts", "topic.window-stats", "topic.dlq");

    /**
     * A base (the defaults, or the live run's settings for a replay) with merged settings applied.
     *
     * @throws ConfigException naming each bad value's source (flag, variable or file) and what is allowed
     */
    public static StreamsSettings apply(StreamsSettings base, Map<String, Settings.Value> merged) {
        final List<String> problems = new ArrayList<>();
        StreamsSettings c = base;
        final Duration size = duration(merged.get("window"), c.window(), true, problems);
        final Duration after = duration(merged.get("grace"), c.grace(), false, problems);
        if (size != null && after != null) {
            c = c.withWindow(size, after);
        }
        final Duration orphans = duration(merged.get("orphan-expiry"), c.orphanExpiry(), true, problems);
        if (orphans != null) {
            c = c.withOrphanExpiry(orphans);
        }
        final Settings.Value o = merged.get("goodput");
        if (o != null) {
            try {
                c = c.withObjectives(SloFlags.parse(List.of(o.value().trim().split("\\s+"))));
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage().replaceFirst("^--goodput", o.source()));
            }
        }
        final TopicNames t = c.topics();
        c = c.withTopics(new TopicNames(topic(merged, "tokens", t.tokens()), topic(merged, "requests", t.requests()),
                topic(merged, "verdicts", t.verdicts()), topic(merged, "window-stats", t.windowStats()),
                topic(merged, "dlq", t.dlq())));
        if (!problems.isEmpty()) {
            throw new ConfigException("settings", "(flags, GOODPUT_* variables, --settings file)", problems);
        }
        return c;
    }

    private static Duration duration(Settings.Value v, Duration otherwise, boolean positive, List<String> problems) {
        if (v == null) {
            return otherwise;
        }
        try {
            final Duration d = Durations.parse(v.value(), v.source());
            return positive ? Durations.positive(d, v.source()) : Durations.nonNegative(d, v.source());
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
            return null;
        }
    }

    private static String topic(Map<String, Settings.Value> merged, String name, String otherwise) {
        final Settings.Value v = merged.get("topic." + name);
        return v == null || v.value().isBlank() ? otherwise : v.value();
    }
}
