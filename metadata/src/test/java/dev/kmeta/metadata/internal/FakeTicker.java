package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.Ticker;

import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when told to. Thread-safe. */
final class FakeTicker implements Ticker {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    void advanceMs(long ms) {
        nanos.addAndGet(ms * 1_000_000L);
    }

    long nowMs() {
        return milliTime();
    }
}
