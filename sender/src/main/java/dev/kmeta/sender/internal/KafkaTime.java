package dev.kmeta.sender.internal;

import dev.kmeta.metadata.Ticker;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * The instance's one clock, its {@link Ticker}, as kafka-clients' {@link Time}: the only bridge between the two. The
 * {@code NetworkClient} of kmeta's own thread (request timeouts, reconnect and connection-setup backoffs, the
 * rebootstrap check it runs in {@code poll}) and its metrics run on it, so every time that client hands back to kmeta
 * is on the ticker the manager, the waits and the evidence read. Milliseconds and nanoseconds are the ticker's:
 * monotonic, not wall-clock (nothing kafka-clients does with this client's time needs the date).
 *
 * <p>Thread-safe, as the ticker is.
 */
@SuppressKafkaInternalApiUsage("kmeta's clock as the common.utils.Time that NetworkClient takes")
final class KafkaTime implements Time {
    private final Ticker ticker;

    KafkaTime(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    @Override
    public long milliseconds() {
        return ticker.milliTime();
    }

    @Override
    public long nanoseconds() {
        return ticker.nanoTime();
    }

    /** A real sleep: nothing kmeta hands this clock to sleeps on it. */
    @Override
    public void sleep(long ms) {
        Utils.sleep(ms);
    }

    /** Not used by a {@code NetworkClient} (kafka-clients' producer metadata waits on it; kmeta has its own waits). */
    @Override
    public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
        throw new UnsupportedOperationException("kmeta's clock does not wait on objects");
    }
}
