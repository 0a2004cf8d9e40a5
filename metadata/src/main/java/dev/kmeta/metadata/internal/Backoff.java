package dev.kmeta.metadata.internal;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter (KIP-580): {@code base * 2^attempts}, capped at {@code max}, times a random
 * factor in {@code [1 - jitter, 1 + jitter]} (never above {@code max}). Immutable and thread-safe.
 */
final class Backoff {
    private final long baseMs;
    private final long maxMs;
    private final double jitter;

    Backoff(long baseMs, long maxMs, double jitter) {
        this.baseMs = Math.max(0, baseMs);
        this.maxMs = Math.max(this.baseMs, maxMs);
        this.jitter = jitter;
    }

    /** The backoff before attempt {@code attempts + 1}; attempts counts the failures (or no-news answers) so far. */
    long backoffMs(int attempts) {
        if (baseMs == 0) {
            return 0;
        }
        int shift = Math.min(Math.max(attempts, 0), 30);
        long exp = Math.min(maxMs, baseMs << shift);
        if (jitter <= 0) {
            return exp;
        }
        double factor = 1 - jitter + ThreadLocalRandom.current().nextDouble() * 2 * jitter;
        return Math.min(maxMs, Math.max(0, Math.round(exp * factor)));
    }

    long baseMs() {
        return baseMs;
    }

    long maxMs() {
        return maxMs;
    }
}
