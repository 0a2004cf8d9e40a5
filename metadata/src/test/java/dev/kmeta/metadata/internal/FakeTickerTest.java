package dev.kmeta.metadata.internal;

import dev.kmeta.faketime.FakeTicker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tests' fake time keeps its promise: a parked thread stays parked whatever real time passes until fake time
 * reaches its deadline, and {@link FakeTicker#advanceMs} wakes exactly the threads whose deadlines it passed; an
 * unpark or an interrupt ends a park at once.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FakeTickerTest {
    private final FakeTicker ticker = new FakeTicker();

    /** A thread that parks once for {@code ms} of fake time, then counts down {@code done}. */
    private Thread parkOnce(long ms, CountDownLatch done) {
        Thread t = new Thread(() -> {
            ticker.park(this, TimeUnit.MILLISECONDS.toNanos(ms));
            done.countDown();
        }, "parks-" + ms);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void advanceWakesExactlyTheThreadsWhoseDeadlinesPassed() throws Exception {
        CountDownLatch shortDone = new CountDownLatch(1);
        CountDownLatch longDone = new CountDownLatch(1);
        Thread shortPark = parkOnce(100, shortDone);
        Thread longPark = parkOnce(1_000, longDone);
        ticker.awaitParked(2);

        ticker.advanceMs(99);
        assertEquals(2, ticker.parkedCount(), "no deadline passed");
        ticker.advanceMs(1);
        assertTrue(shortDone.await(10, TimeUnit.SECONDS), "woken at its deadline");
        assertFalse(ticker.isParked(shortPark));
        assertTrue(ticker.isParked(longPark));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(900), ticker.parkedForNs(longPark));
        assertEquals(1, longDone.getCount(), "the later deadline is not woken");

        ticker.advanceMs(900);
        assertTrue(longDone.await(10, TimeUnit.SECONDS));
        assertEquals(0, ticker.parkedCount());
    }

    @Test
    void anUnparkOrAnInterruptEndsAParkAtOnce() throws Exception {
        CountDownLatch unparked = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        Thread a = parkOnce(60_000, unparked);
        Thread b = parkOnce(60_000, interrupted);
        ticker.awaitParked(2);

        ticker.unpark(a);
        assertTrue(unparked.await(10, TimeUnit.SECONDS));
        b.interrupt();
        assertTrue(interrupted.await(10, TimeUnit.SECONDS));
        assertEquals(0, ticker.parkedCount());
        assertFalse(ticker.awaitParked(b), "an ended thread is not parked");
    }

    @Test
    void aParkWithNoTimeLeftOrAnEndlessOneDoesNotWrap() throws Exception {
        ticker.park(this, 0); // returns at once: the test would hang otherwise
        CountDownLatch done = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            ticker.park(this, Long.MAX_VALUE);
            done.countDown();
        }, "parks-forever");
        t.setDaemon(true);
        t.start();
        ticker.awaitParked(t);
        ticker.advanceMs(TimeUnit.DAYS.toMillis(365));
        assertTrue(ticker.isParked(t), "an endless park is not woken by time");
        ticker.unpark(t);
        assertTrue(done.await(10, TimeUnit.SECONDS));
    }
}
