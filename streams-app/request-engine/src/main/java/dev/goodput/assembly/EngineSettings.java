package dev.goodput.assembly;

import java.time.Duration;

/**
 * The engine's settings: the windows' length and grace (lateness and the watermark) and how long
 * token events wait for their request event before they are orphans.
 */
public record EngineSettings(Duration window, Duration grace, Duration orphanExpiry) {

    public EngineSettings {
        if (window.isNegative() || window.isZero() || grace.isNegative() || orphanExpiry.isNegative()) {
            throw new IllegalArgumentException("window must be positive, grace and orphan expiry not negative: "
                    + window + ", " + grace + ", " + orphanExpiry);
        }
    }

    public long windowUs() {
        return window.toNanos() / 1_000;
    }

    public long graceUs() {
        return grace.toNanos() / 1_000;
    }

    public long orphanExpiryUs() {
        return orphanExpiry.toNanos() / 1_000;
    }
}
