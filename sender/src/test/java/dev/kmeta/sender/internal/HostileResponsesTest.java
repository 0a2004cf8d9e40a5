package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataException;
import dev.kmeta.metadata.TopicException;
import dev.kmeta.metadata.internal.MetadataManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import java.time.Duration;

/**
 * Randomized hostile metadata answers through the real translation ({@link ResponseTranslator} on kafka-clients'
 * {@code MetadataResponse}) and the manager's driver: a seeded property test (a JUnit loop over
 * {@code new Random(seed)}; jqwik is not used, see the build notes).
 *
 * <p>10,000 scripts of 10 sender rounds each (about 10^5 answers, failures and disconnects in all, with about four
 * application calls or time steps per script besides), each script against a fresh manager with the default
 * configuration. {@link HostileWorld} says what the answers do wrong; {@link HostileChecks} what must hold after
 * every driver call (the snapshot internally consistent, versions only growing, counts and epochs never going back
 * without a topic id change or the documented escapes, the driver never throwing, zero-budget waits answered exactly
 * when the snapshot answers) and after every applied answer (a reference model of the rules). A failure names the
 * seed and the step, and shows the script shrunk to the actions that still fail. Re-run one script with
 * {@code -Dkmeta.hostile.seed=<seed>}; run more with {@code -Dkmeta.hostile.sequences=100000}.
 *
 * <p>Why 10^4 x 10: a script's value is in the history it builds (a rewind needs 5 answers in a row, an expiry minutes
 * of fake time, a stale epoch a newer one first); ten rounds reach those while a fresh manager per script keeps states
 * independent. Measured: 35 s for the default run on the shared 2-core machine under heavy load.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HostileResponsesTest {
    private static final int SEQUENCES = Integer.getInteger("kmeta.hostile.sequences", 10_000);
    private static final int ANSWERS_PER_SEQUENCE = 10;
    private static final long FIRST_SEED = Long.getLong("kmeta.hostile.firstSeed", 0x6b6d657461L);
    private static final String ONE_SEED = System.getProperty("kmeta.hostile.seed");
    /** Scripts with a real thread parked on a topic (threads cost more than fake-time steps). */
    private static final int WAITER_SEQUENCES = Integer.getInteger("kmeta.hostile.waiterSequences", 300);
    private static final MetadataConfig CONFIG = MetadataConfig.from(Map.of("client.id", "hostile",
            "kmeta.metadata.jitter", "0"));

    private static QuietLogs quiet;

    @BeforeAll
    static void quietExpectedWarnings() {
        // Every cluster id change is a WARN line by design; thousands of them would drown the build output.
        quiet = QuietLogs.of("dev.kmeta.metadata.internal.MetadataManager",
                "dev.kmeta.sender.internal.ResponseTranslator");
    }

    @AfterAll
    static void restoreLogs() {
        quiet.close();
    }

    @Test
    void hostileAnswerSequencesKeepTheSnapshotSound() {
        HostileRun.Totals totals = new HostileRun.Totals();
        long startNs = System.nanoTime();
        long startCpuNs = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        for (long seed : seeds()) {
            List<HostileWorld.Action> script = new HostileWorld(new Random(seed)).script(ANSWERS_PER_SEQUENCE);
            HostileRun.Failure f = new HostileRun(CONFIG, script, totals).run();
            if (f != null) {
                fail(report(seed, script, f));
            }
        }
        System.out.printf("HostileResponsesTest: %d scripts in %d ms (%d ms of CPU): %s%n", seeds().length,
                (System.nanoTime() - startNs) / 1_000_000,
                (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - startCpuNs) / 1_000_000, totals);
        if (ONE_SEED == null) {
            // The scripts must reach every rule, or the invariants hold vacuously.
            assertTrue(totals.answersApplied > SEQUENCES * ANSWERS_PER_SEQUENCE / 2, totals::toString);
            assertTrue(totals.answersRejected > 0 && totals.failures > 0 && totals.staleEpochsRejected > 0
                    && totals.rewindsAccepted > 0 && totals.clusterIdChanges > 0 && totals.topicIdChanges > 0
                    && totals.hintsApplied > 0 && totals.topicsExpired > 0 && totals.unauthorized > 0
                    && totals.releasedProbes > 0, totals::toString);
        }
    }

    /**
     * The same scripts with a real application thread parked in {@code awaitTopic} (a budget far beyond the run):
     * whenever the snapshot answers it (or refuses its topic), it must return within 10 s - woken, not left parked
     * until its deadline; at close it must get {@link MetadataClosedException}.
     */
    @Test
    void parkedWaitersAreReleasedByHostileAnswers() throws Exception {
        HostileRun.Totals totals = new HostileRun.Totals();
        int released = 0;
        for (int i = 0; i < WAITER_SEQUENCES; i++) {
            long seed = FIRST_SEED + 1_000_000 + i;
            Random rnd = new Random(seed);
            List<HostileWorld.Action> script = new HostileWorld(rnd).script(ANSWERS_PER_SEQUENCE);
            HostileRun run = new HostileRun(CONFIG, script, totals);
            Waiter waiter = new Waiter(run, rnd);
            int[] count = {0};
            run.afterEachAction(() -> count[0] += waiter.checkReleased());
            HostileRun.Failure f = run.run();
            if (f != null) {
                fail("seed " + seed + ", step " + f.step() + ": " + f.message() + "\nscript: " + script);
            }
            waiter.checkClosed(seed);
            released += count[0];
        }
        assertTrue(released > WAITER_SEQUENCES, "parked waiters released by answers: " + released);
    }

    /** One application thread parked in awaitTopic; replaced by a new one each time it is released. */
    private static final class Waiter {
        private final HostileRun run;
        private final Random rnd;
        private String topic;
        private int partition;
        private CompletableFuture<Cluster> result;

        Waiter(HostileRun run, Random rnd) {
            this.run = run;
            this.rnd = rnd;
            start();
        }

        private void start() {
            topic = HostileWorld.TOPICS.get(rnd.nextInt(HostileWorld.TOPICS.size()));
            partition = rnd.nextInt(4) - 1;
            MetadataManager m = run.manager();
            CompletableFuture<Cluster> f = new CompletableFuture<>();
            Deadline tenDays = Deadline.after(Duration.ofMillis(TimeUnit.DAYS.toMillis(10)), run.ticker());
            Thread t = new Thread(() -> {
                try {
                    f.complete(m.awaitTopic(topic, partition, tenDays));
                } catch (MetadataException e) {
                    f.completeExceptionally(e);
                }
            }, "hostile-waiter");
            t.setDaemon(true);
            t.start();
            run.ticker().awaitParked(t); // or it ended (f done)
            result = f;
        }

        /** If the snapshot answers the waiter, it must come back; returns 1 when it did. */
        int checkReleased() {
            Cluster c = run.manager().fetch();
            TopicMetadata t = c.topic(topic);
            PartitionMetadata p = t == null ? null : t.partition(partition);
            boolean answers = t != null && (partition == MetadataClient.ANY_PARTITION ? t.partitionCount() > 0
                    : p != null && p.hasLeader());
            boolean refused = c.unauthorizedTopics().contains(topic) || c.invalidTopics().contains(topic);
            if (!answers && !refused) {
                return 0;
            }
            try {
                result.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                HostileChecks.check(e.getCause() instanceof TopicException, "waiter failed: " + e.getCause());
            } catch (TimeoutException e) {
                throw new AssertionError("a thread waiting for " + topic + "/" + partition + " still parked 10 s "
                        + "after the snapshot answered it: " + t + " " + p);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            start();
            return 1;
        }

        void checkClosed(long seed) throws InterruptedException {
            try {
                result.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                HostileChecks.check(e.getCause() instanceof MetadataClosedException
                        || e.getCause() instanceof TopicException, "seed " + seed + ": at close the waiter got "
                        + e.getCause());
            } catch (TimeoutException e) {
                throw new AssertionError("seed " + seed + ": a waiter still parked 10 s after close");
            }
        }
    }

    // ------------------------------------------------------------------ seeds, reports, shrinking

    private static long[] seeds() {
        if (ONE_SEED != null) {
            return new long[] {Long.decode(ONE_SEED)};
        }
        long[] seeds = new long[SEQUENCES];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = FIRST_SEED + i;
        }
        return seeds;
    }

    private static String report(long seed, List<HostileWorld.Action> script, HostileRun.Failure f) {
        List<HostileWorld.Action> small = shrink(script);
        HostileRun.Failure sf = new HostileRun(CONFIG, small, new HostileRun.Totals()).run();
        StringBuilder sb = new StringBuilder("seed ").append(seed).append(" (re-run: -Dkmeta.hostile.seed=")
                .append(seed).append("), step ").append(f.step()).append(" of ").append(script.size()).append(": ")
                .append(f.message()).append("\nshrunk to ").append(small.size()).append(" actions, failing ")
                .append(sf == null ? "only in the whole script" : "at step " + sf.step() + ": " + sf.message())
                .append('\n');
        for (int i = 0; i < small.size(); i++) {
            sb.append("  ").append(i).append(". ").append(small.get(i)).append('\n');
        }
        return sb.toString();
    }

    /** Drops actions one at a time while the script still fails: the script is data, so replays are exact. */
    private static List<HostileWorld.Action> shrink(List<HostileWorld.Action> script) {
        List<HostileWorld.Action> current = new ArrayList<>(script);
        HostileRun.Failure f = new HostileRun(CONFIG, current, new HostileRun.Totals()).run();
        if (f == null) {
            return current; // not reproducible alone: shown whole
        }
        current = new ArrayList<>(current.subList(0, f.step() + 1));
        boolean progress = true;
        while (progress) {
            progress = false;
            for (int i = current.size() - 1; i >= 0; i--) {
                List<HostileWorld.Action> candidate = new ArrayList<>(current);
                candidate.remove(i);
                HostileRun.Failure cf = new HostileRun(CONFIG, candidate, new HostileRun.Totals()).run();
                if (cf != null) {
                    current = new ArrayList<>(candidate.subList(0, cf.step() + 1));
                    progress = true;
                    i = Math.min(i, current.size());
                }
            }
        }
        return current;
    }
}
