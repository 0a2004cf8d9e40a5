package dev.kmeta.metadata;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Deadline#after(Duration, Ticker)}, the one factory taking a clock, on fake time. */
class DeadlineTest {
    private final AtomicLong nowNs = new AtomicLong(1_000_000_000L);
    private final Ticker ticker = nowNs::get;

    @Test
    void aDurationIsItsMilliseconds() {
        Deadline d = Deadline.after(Duration.ofMillis(1_500).plusNanos(999_999), ticker);
        assertEquals(1_500, d.budgetMs(), "sub-ms parts are dropped");
        assertEquals(nowNs.get() + 1_500_000_000L, d.deadlineNs());
        nowNs.addAndGet(1_499_000_000L);
        assertFalse(d.isExpired());
        nowNs.addAndGet(1_000_000L);
        assertTrue(d.isExpired());
    }

    @Test
    void aHugeDurationSaturatesAndANegativeOneIsRefused() {
        assertEquals(Long.MAX_VALUE, Deadline.after(Duration.ofSeconds(Long.MAX_VALUE), ticker).budgetMs());
        assertFalse(Deadline.after(Duration.ofSeconds(Long.MAX_VALUE), ticker).isExpired());
        assertThrows(IllegalArgumentException.class, () -> Deadline.after(Duration.ofMillis(-1), ticker));
        assertThrows(IllegalArgumentException.class, () -> Deadline.after(Duration.ofSeconds(Long.MIN_VALUE), ticker));
    }
}
