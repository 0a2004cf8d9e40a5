package dev.kmeta.metadata;

import java.time.Duration;
import java.util.Objects;

/**
 * One time budget, made once per {@code send()} from {@code max.block.ms}: every wait the send goes through
 * (metadata for a new topic, a refresh after an invalidation, then the buffer) draws on it, and what is left is
 * readable for the next wait.
 *
 * <p>Immutable and thread-safe. Backed by an injected {@link Ticker}, so tests run it on fake time.
 */
public final class Deadline {
    private final Ticker ticker;
    private final long startNs;
    private final long deadlineNs;
    private final long budgetMs;

    private Deadline(Ticker ticker, long startNs, long budgetMs) {
        this.ticker = ticker;
        this.startNs = startNs;
        this.budgetMs = budgetMs;
        long budgetNs = budgetMs >= Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE / 2 : budgetMs * 1_000_000L;
        this.deadlineNs = startNs + budgetNs;
    }

    /**
     * A deadline {@code budget} from now on {@code ticker}, at ms precision (sub-ms parts dropped; a budget past
     * {@code Long.MAX_VALUE} ms is taken as that). The only factory taking a clock: code that has an instance makes
     * its deadlines there ({@link MetadataClient#newDeadline(Duration)}, {@code KafkaMetadata.newSendDeadline()}), so
     * that they run on the instance's {@link Ticker}; code that holds its own ticker (a test's fake, a producer's
     * clock) passes it here. There is deliberately no factory on an implicit system clock: a deadline on another
     * clock than the instance's would time out on real time under a fake one.
     *
     * @throws IllegalArgumentException if the budget is negative
     */
    public static Deadline after(Duration budget, Ticker ticker) {
        long budgetMs = toMillisSaturated(Objects.requireNonNull(budget, "budget"));
        if (budgetMs < 0) {
            throw new IllegalArgumentException("budget must be >= 0 ms: " + budget);
        }
        Objects.requireNonNull(ticker, "ticker");
        return new Deadline(ticker, ticker.nanoTime(), budgetMs);
    }

    private static long toMillisSaturated(Duration budget) {
        try {
            return budget.toMillis();
        } catch (ArithmeticException overflow) {
            return budget.isNegative() ? -1 : Long.MAX_VALUE;
        }
    }

    /** The whole budget this deadline was made with, in ms. */
    public long budgetMs() {
        return budgetMs;
    }

    /** Nanoseconds left, never negative. */
    public long remainingNs() {
        return Math.max(0L, deadlineNs - ticker.nanoTime());
    }

    /** Milliseconds left, rounded up so that a positive remainder never reads as 0; never negative. */
    public long remainingMs() {
        long ns = remainingNs();
        return ns == 0 ? 0 : (ns + 999_999L) / 1_000_000L;
    }

    /** Milliseconds spent since the deadline was made. */
    public long elapsedMs() {
        return (ticker.nanoTime() - startNs) / 1_000_000L;
    }

    /** True once no time is left. */
    public boolean isExpired() {
        return deadlineNs - ticker.nanoTime() <= 0;
    }

    /** The deadline as a {@link Ticker} instant, in ns. */
    public long deadlineNs() {
        return deadlineNs;
    }

    /** The ticker this deadline reads. */
    public Ticker ticker() {
        return ticker;
    }

    @Override
    public String toString() {
        return "Deadline(budget=" + budgetMs + " ms, remaining=" + remainingMs() + " ms)";
    }
}
