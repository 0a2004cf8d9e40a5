package dev.kmeta.faketime;

import dev.kmeta.metadata.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link Ticker} for tests that owns the time and the waiting, in the spirit of OkHttp's {@code TaskFaker}: time
 * moves only in {@link #advance}, a thread in {@link #park} stays parked (whatever real time passes) until fake time
 * reaches its deadline, it is {@link #unpark unparked}, or it is interrupted; {@link #advance} wakes exactly the
 * parked threads whose deadlines it passed. {@link #awaitParked} returns once the wanted number of threads is parked
 * here: a test hands work to a thread, waits until the thread parks, moves time, and looks - no sleeps, no real-time
 * bounds (but the 10 s after which a thread that never parks fails the test).
 *
 * <p>A parked thread counts as parked from the moment it registers here until it is woken (by {@link #advance} or
 * {@link #unpark}, which take it off at once, so that a following {@link #awaitParked} waits for it to park again)
 * or returns for another reason. Thread-safe. Starts at 1 s.
 */
public final class FakeTicker implements Ticker {
    /** How long {@link #awaitParked} waits for threads that never park before it fails the test (real time). */
    private static final long GIVE_UP_NS = Duration.ofSeconds(10).toNanos();

    /** One thread's park: its deadline on the fake clock. */
    private static final class Parked {
        final Thread thread;
        final long deadlineNs;

        Parked(Thread thread, long deadlineNs) {
            this.thread = thread;
            this.deadlineNs = deadlineNs;
        }
    }

    private final Object lock = new Object();
    private volatile long nowNs = 1_000_000_000L;
    /** Guarded by {@link #lock}. */
    private final Map<Thread, Parked> parked = new LinkedHashMap<>();

    @Override
    public long nanoTime() {
        return nowNs;
    }

    /** The fake time in ms. */
    public long nowMs() {
        return milliTime();
    }

    @Override
    public void park(Object blocker, long nanos) {
        Thread me = Thread.currentThread();
        Parked p;
        synchronized (lock) {
            if (nanos <= 0 || me.isInterrupted()) {
                return;
            }
            long deadlineNs = nowNs + nanos;
            p = new Parked(me, deadlineNs < nowNs ? Long.MAX_VALUE : deadlineNs); // saturated, never wraps
            parked.put(me, p);
            lock.notifyAll();
        }
        try {
            LockSupport.park(blocker); // a wake that came before this returns at once (the permit)
        } finally {
            synchronized (lock) {
                parked.remove(me, p);
                lock.notifyAll();
            }
        }
    }

    @Override
    public void unpark(Thread thread) {
        synchronized (lock) {
            parked.remove(thread);
            lock.notifyAll();
        }
        LockSupport.unpark(thread);
    }

    /** Moves time by {@code d} and wakes every parked thread whose deadline is now reached. */
    public void advance(Duration d) {
        advanceNs(d.toNanos());
    }

    /** Moves time by {@code ms} and wakes every parked thread whose deadline is now reached. */
    public void advanceMs(long ms) {
        advanceNs(ms * 1_000_000L);
    }

    /** Moves time by {@code ns} (0 or more) and wakes every parked thread whose deadline is now reached. */
    public void advanceNs(long ns) {
        if (ns < 0) {
            throw new IllegalArgumentException("time goes forward: " + ns);
        }
        advanceToNs(nowNs + ns);
    }

    /** Moves time to {@code ns} (if later than now) and wakes every parked thread whose deadline is now reached. */
    public void advanceToNs(long ns) {
        List<Thread> due = new ArrayList<>();
        synchronized (lock) {
            if (ns > nowNs) {
                nowNs = ns;
            }
            parked.values().removeIf(p -> {
                if (p.deadlineNs <= nowNs) {
                    due.add(p.thread);
                    return true;
                }
                return false;
            });
            lock.notifyAll();
        }
        due.forEach(LockSupport::unpark);
    }

    /** How many threads are parked here now. */
    public int parkedCount() {
        synchronized (lock) {
            return parked.size();
        }
    }

    /** True when {@code thread} is parked here now. */
    public boolean isParked(Thread thread) {
        synchronized (lock) {
            return parked.containsKey(thread);
        }
    }

    /** The fake time left until {@code thread}'s parked deadline, or -1 when it is not parked here. */
    public long parkedForNs(Thread thread) {
        synchronized (lock) {
            Parked p = parked.get(thread);
            return p == null ? -1 : p.deadlineNs - nowNs;
        }
    }

    /**
     * Returns once at least {@code n} threads are parked here.
     *
     * @throws AssertionError if that did not happen within 10 s of real time (a thread that never parks)
     */
    public void awaitParked(int n) {
        awaitUntil(() -> parked.size() >= n, n + " parked thread(s)");
    }

    /**
     * Returns once {@code thread} is parked here (true) or has ended (false).
     *
     * @throws AssertionError if neither happened within 10 s of real time
     */
    public boolean awaitParked(Thread thread) {
        awaitUntil(() -> parked.containsKey(thread) || !thread.isAlive(), thread.getName() + " parked or ended");
        return isParked(thread);
    }

    private void awaitUntil(java.util.function.BooleanSupplier done, String what) {
        long giveUpAt = System.nanoTime() + GIVE_UP_NS;
        synchronized (lock) {
            while (!done.getAsBoolean()) {
                long leftNs = giveUpAt - System.nanoTime();
                if (leftNs <= 0) {
                    throw new AssertionError("not " + what + " within 10 s; parked: " + parked.size());
                }
                try {
                    // the thread-ended case has no notify: look again every 10 ms
                    lock.wait(Math.max(1, Math.min(10, leftNs / 1_000_000L)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while awaiting " + what, e);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "FakeTicker(now=" + nowMs() + " ms, parked=" + parkedCount() + ")";
    }
}
