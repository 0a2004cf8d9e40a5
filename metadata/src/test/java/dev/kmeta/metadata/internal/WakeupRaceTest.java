package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.Ticker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/**
 * No lost wake-up: a waiter with a long budget (10 s) and the sender publishing the answer it waits for (or a thread
 * closing the client) start at the same instant, and the other side's action slides by a random few hundred
 * nanoseconds across the waiter's path, so that the two cross at every point of the add-then-recheck /
 * publish-then-drain protocol of {@link WaitQueue}. 600 rounds per race on real threads and the system clock (more
 * where load kept the waiter from coming in before the answer: see {@link #MAX_ROUNDS}). A lost
 * wake-up leaves a waiter parked to its deadline, so each test asserts that every waiter got its answer and that the
 * slowest took far less than the budget.
 *
 * <p>Sensitivity, measured: with the re-check before {@code parkNanos} removed from {@code awaitTopic} and
 * {@code awaitUpdate} (park unconditionally once queued), every one of these tests fails, with 3 to 23 lost wake-ups
 * per 2,000 rounds; at 600 rounds and a 5 s soft limit (issue 25: 27.5 s -> 4 s of the suite at load 22) all six
 * still fail, each with 1 to 3 waiters stuck to their deadline within its first 200 to 365 rounds ({@code
 * -Dkmeta.wakeup.rounds=2000 -Dkmeta.wakeup.soft.limit.ms=20000} for the old size).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WakeupRaceTest {
    private static final int ROUNDS = Integer.getInteger("kmeta.wakeup.rounds", 600);
    private static final long BUDGET_MS = Long.getLong("kmeta.wakeup.budget.ms", 10_000);
    private static final int SPIN = Integer.getInteger("kmeta.wakeup.spin", 100);
    /**
     * A race stops starting rounds after this long once it has {@link #MIN_ROUNDS}: on a starved machine (2 cores at
     * load 20) a round can take tens of ms while its two threads wait for CPUs, and 2,000 of them outlast any timeout.
     */
    private static final long SOFT_LIMIT_MS = Long.getLong("kmeta.wakeup.soft.limit.ms", 5_000);
    private static final int MIN_ROUNDS = Math.min(ROUNDS, 200);
    /**
     * A race whose waiter came in before the answer in fewer than 1 round in 200 (load keeps the two threads apart)
     * goes on past {@link #ROUNDS} and the soft limit, up to this many rounds or {@link #HARD_LIMIT_MS}, until it has.
     */
    private static final int MAX_ROUNDS = 4 * ROUNDS;
    private static final long HARD_LIMIT_MS = SOFT_LIMIT_MS + 15_000;
    /** Far below the budget: a woken waiter returns in micro- to milliseconds, a lost one only at 10 s. */
    private static final long SLOWEST_ALLOWED_MS = Math.min(2_000, BUDGET_MS / 2);
    private static final MetadataConfig CONFIG = MetadataConfig.from(Map.of("client.id", "race",
            "kmeta.metadata.jitter", "0", "retry.backoff.ms", "0"));

    private static ExecutorService pool;

    @BeforeAll
    static void startThreads() {
        pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "race");
            t.setDaemon(true);
            return t;
        });
    }

    @AfterAll
    static void stopThreads() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    /** A fresh manager on the system clock; nothing sent yet. */
    private static MetadataManager manager() {
        MetadataManager m = new MetadataManager(CONFIG, Ticker.system());
        m.setWaker(() -> { });
        return m;
    }

    private static long now(MetadataManager m) {
        return m.ticker().milliTime();
    }

    private static void answer(MetadataManager m, FakeBroker broker, RefreshRequest r) {
        m.onResponse(r, broker.respond(r), now(m));
    }

    /** One sender round on the calling thread. */
    private static RefreshRequest step(MetadataManager m, FakeBroker broker) {
        m.poll(now(m));
        RefreshRequest r = m.beginRefresh(now(m));
        if (r != null) {
            answer(m, broker, r);
        }
        return r;
    }

    private static void spin(int max) {
        for (int i = ThreadLocalRandom.current().nextInt(max); i > 0; i--) {
            Thread.onSpinWait();
        }
    }

    /** What one race did. */
    private static final class Stats {
        long slowestNs;
        long totalNs;
        int rounds;
        int waiterFirst;
        int slow;

        void add(long waitNs, boolean waiterWasFirst) {
            if (waitNs > TimeUnit.MILLISECONDS.toNanos(SLOWEST_ALLOWED_MS)) {
                slow++;
            }
            slowestNs = Math.max(slowestNs, waitNs);
            totalNs += waitNs;
            rounds++;
            if (waiterWasFirst) {
                waiterFirst++;
            }
        }

        void check(String race) {
            System.out.printf("WakeupRaceTest %s: %d rounds (%d with the waiter in before the answer), %d slow,"
                    + " slowest wait %.3f ms, mean %.3f ms%n", race, rounds, waiterFirst, slow, slowestNs / 1e6,
                    totalNs / 1e6 / rounds);
            assertTrue(rounds >= MIN_ROUNDS, race + ": " + rounds + " rounds");
            // 1 in 200: on 2 cores at load 20 (other builds) the two threads overlap less often (25 of 2,000 seen in
            // one race); still proof that the interleaving under test happened, and 0 when the harness is broken.
            assertTrue(waiterFirst >= exercisedAt(rounds), race + ": the waiter came in before the answer in only "
                    + waiterFirst + " rounds; the race is not exercised");
            assertTrue(slowestNs < TimeUnit.MILLISECONDS.toNanos(SLOWEST_ALLOWED_MS),
                    race + ": a waiter took " + slowestNs / 1_000_000 + " ms; a woken waiter returns in ms, so a wait"
                            + " this long means a lost wake-up (released only by its own deadline)");
        }
    }

    /** Rounds with the waiter in first that show the race was exercised in {@code rounds} rounds (1 in 200). */
    private static int exercisedAt(int rounds) {
        return Math.max(1, rounds / 200);
    }

    /**
     * One round: what the waiter calls, what the other side (sender or closer) does at the same moment, and whether
     * the two crossed ({@code crossed}, read once both are done; null: the waiter started before the other side acted).
     */
    private record Race(Runnable waiter, Runnable other, BooleanSupplier crossed) {
        Race(Runnable waiter, Runnable other) {
            this(waiter, other, null);
        }
    }

    /**
     * Spins until {@code condition} holds, yielding after {@code tightSpins} (a thread spinning for long holds the
     * CPU the other side needs on a starved machine); false if it did not within the budget + 5 s.
     */
    private static boolean spinUntil(BooleanSupplier condition, int tightSpins) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BUDGET_MS + 5_000);
        int spins = 0;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            if (++spins < tightSpins) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        return true;
    }

    /**
     * Runs {@link #ROUNDS} races on two threads (fewer past the soft limit; more, up to {@link #MAX_ROUNDS}, while the
     * waiter has not yet come in first in 1 round in 200). The other thread prepares round i ({@code setup}), releases the
     * waiter through a volatile counter (the waiter spins on it, so both start within a fraction of a microsecond),
     * spins a random few hundred nanoseconds and acts; the waiter calls at once. The random spin slides the other
     * side's action across the waiter's whole path: before it, during its add-then-recheck, after it parked.
     */
    private static Stats run(IntFunction<Race> setup) throws Exception {
        AtomicInteger go = new AtomicInteger(-1);
        AtomicInteger done = new AtomicInteger(-1);
        AtomicInteger rounds = new AtomicInteger(MAX_ROUNDS);
        long startNs = System.nanoTime();
        long softEnd = startNs + TimeUnit.MILLISECONDS.toNanos(SOFT_LIMIT_MS);
        long hardEnd = startNs + TimeUnit.MILLISECONDS.toNanos(HARD_LIMIT_MS);
        AtomicReference<Race> current = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] waiterStart = new long[MAX_ROUNDS];
        long[] otherStart = new long[MAX_ROUNDS];
        long[] wait = new long[MAX_ROUNDS];
        boolean[] crossed = new boolean[MAX_ROUNDS];
        Future<?> waiter = pool.submit(() -> {
            for (int i = 0; i < MAX_ROUNDS; i++) {
                int round = i;
                if (!spinUntil(() -> go.get() >= round || rounds.get() <= round, 1 << 20)) {
                    failure.compareAndSet(null, new AssertionError("round " + round + " never started"));
                    return;
                }
                if (go.get() < round) {
                    return; // the other side stopped at the soft limit
                }
                Race r = current.get();
                waiterStart[i] = System.nanoTime();
                try {
                    r.waiter.run();
                } catch (Throwable t) {
                    failure.compareAndSet(null, new AssertionError("round " + round
                            + ": the waiter failed instead of getting its answer", t));
                    done.set(round);
                    return;
                }
                wait[i] = System.nanoTime() - waiterStart[i];
                done.set(round);
            }
        });
        Future<?> other = pool.submit(() -> {
            int waiterFirst = 0;
            for (int i = 0; i < MAX_ROUNDS && failure.get() == null; i++) {
                long now = System.nanoTime();
                boolean enough = i >= ROUNDS || i >= MIN_ROUNDS && now - softEnd > 0;
                if (enough && (waiterFirst >= exercisedAt(i) || now - hardEnd > 0)) {
                    rounds.set(i);
                    return;
                }
                int round = i;
                Race r = setup.apply(i);
                current.set(r);
                go.set(i);
                spin(SPIN);
                otherStart[i] = System.nanoTime();
                r.other.run();
                if (!spinUntil(() -> done.get() >= round, 1 << 10)) {
                    failure.compareAndSet(null, new AssertionError("round " + round + ": the waiter never returned"));
                    return;
                }
                crossed[i] = r.crossed != null ? r.crossed.getAsBoolean() // written before done: visible
                        : waiterStart[i] - otherStart[i] < 0;
                if (crossed[i]) {
                    waiterFirst++;
                }
            }
        });
        other.get(2 * BUDGET_MS + 30_000, TimeUnit.MILLISECONDS);
        waiter.get(BUDGET_MS + 5_000, TimeUnit.MILLISECONDS);
        if (failure.get() != null) {
            throw new AssertionError(failure.get().getMessage(), failure.get().getCause());
        }
        Stats stats = new Stats();
        for (int i = 0; i < rounds.get(); i++) {
            stats.add(wait[i], crossed[i]);
        }
        return stats;
    }

    @Test
    void awaitTopicIsWokenByTheAnswerThatLandsAtTheSameMoment() throws Exception {
        run(i -> {
            MetadataManager m = manager();
            FakeBroker broker = new FakeBroker().topic("t", 3, 0);
            subscribe(m, "t");
            m.poll(now(m));
            RefreshRequest inFlight = m.beginRefresh(now(m)); // carries t: its answer is what the waiter needs
            assertTrue(inFlight.topics().contains("t"));
            return new Race(() -> assertEquals(3, m.awaitTopic("t", m.newDeadline(Duration.ofMillis(BUDGET_MS))).partitionCount("t")),
                    () -> answer(m, broker, inFlight));
        }).check("awaitTopic vs onResponse");
    }

    @Test
    void awaitTopicForAPartitionIsWokenByALeaderHintAppliedAtTheSameMoment() throws Exception {
        run(i -> {
            MetadataManager m = manager();
            FakeBroker broker = new FakeBroker().topic("t", 2, 5).leader("t", 1, 9, 5); // broker 9 is not listed
            subscribe(m, "t");
            step(m, broker);
            assertFalse(m.fetch().partition("t", 1).hasLeader());
            m.onLeaderHint("t", 1, 2, 6, null); // broker 2 leads at epoch 6: the sender's next poll applies it
            return new Race(() -> assertEquals(2, m.awaitTopic("t", 1, m.newDeadline(Duration.ofMillis(BUDGET_MS))).leader("t", 1).id()),
                    () -> m.poll(now(m)));
        }).check("awaitTopic(partition) vs leader hint");
    }

    @Test
    void awaitUpdateIsWokenByTheAnswerThatLandsAtTheSameMoment() throws Exception {
        run(i -> {
            MetadataManager m = manager();
            FakeBroker broker = new FakeBroker();
            int version = m.fetch().version();
            m.poll(now(m));
            RefreshRequest inFlight = m.beginRefresh(now(m));
            assertNotNull(inFlight);
            return new Race(() -> m.awaitUpdate(version, m.newDeadline(Duration.ofMillis(BUDGET_MS))), () -> answer(m, broker, inFlight));
        }).check("awaitUpdate vs onResponse");
    }

    /**
     * The sender spins through rounds while the waiter asks: the answer to its request must release it. The answer
     * cannot come before the request, so the two crossed when the answer began after the waiter entered
     * {@code awaitUpdate} (it then lands during the add-then-recheck or after the park) - not, as in the other races,
     * when the waiter started first: on a loaded machine the spinning sender was always already running (0 of 2,238
     * rounds in two fresh-clone runs of ed31f25 beside each other), though every answer still raced the await.
     */
    @Test
    void requestUpdateThenAwaitUpdateIsReleasedByTheAnswerToThatRequest() throws Exception {
        run(i -> {
            MetadataManager m = manager();
            FakeBroker broker = new FakeBroker();
            step(m, broker);
            long[] awaitFromNs = {0};
            long[] answerFromNs = {0};
            return new Race(() -> {
                int version = m.requestUpdate();
                awaitFromNs[0] = System.nanoTime();
                m.awaitUpdate(version, m.newDeadline(Duration.ofMillis(BUDGET_MS)));
            }, () -> spinUntil(() -> {
                m.poll(now(m));
                RefreshRequest r = m.beginRefresh(now(m));
                if (r == null) {
                    return false;
                }
                answerFromNs[0] = System.nanoTime();
                answer(m, broker, r);
                return true;
            }, 1 << 20), () -> answerFromNs[0] - awaitFromNs[0] > 0);
        }).check("requestUpdate + awaitUpdate vs sender rounds");
    }

    @Test
    void closeReleasesATopicWaiterAtTheSameMoment() throws Exception {
        run(i -> {
            MetadataManager m = manager();
            step(m, new FakeBroker());
            return new Race(() -> assertInstanceOf(MetadataClosedException.class,
                    thrown(() -> m.awaitTopic("ghost", m.newDeadline(Duration.ofMillis(BUDGET_MS))))), m::close);
        }).check("awaitTopic vs close");
    }

    @Test
    void closeReleasesAVersionWaiterAtTheSameMoment() throws Exception {
        run(i -> {
            MetadataManager m = manager();
            step(m, new FakeBroker());
            int version = m.fetch().version();
            return new Race(() -> assertInstanceOf(MetadataClosedException.class,
                    thrown(() -> m.awaitUpdate(version, m.newDeadline(Duration.ofMillis(BUDGET_MS))))), m::close);
        }).check("awaitUpdate vs close");
    }

    /** Subscribes {@code topic} without waiting (a zero budget times out at once, but the topic is taken). */
    private static void subscribe(MetadataManager m, String topic) {
        thrown(() -> m.awaitTopic(topic, m.newDeadline(Duration.ZERO)));
        assertTrue(m.subscribedTopics().contains(topic));
    }

    private static Throwable thrown(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("expected the call to throw");
    }
}
