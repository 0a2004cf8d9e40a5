package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.Ticker;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.time.Duration;

/**
 * Lincheck model checking of the manager's whole application-facing API at once - {@code fetch}, {@code requestUpdate},
 * {@code awaitUpdate} (zero and small budgets), {@code awaitTopic} (zero and small budgets, any partition, an existing
 * one, one out of range, a topic that does not exist), {@code onLeaderHint}, {@code invalidate}, {@code close} - with
 * the sender's step as operations: {@code send} (poll, then the request that is due), and the apply step
 * {@code receive} (the broker's answer merged and published) or {@code receiveFailure}. Lincheck explores the
 * interleavings of small random scenarios (3 threads; the sender's operations in one non-parallel group: one sender
 * thread, as in production, with application operations interleaving while a request is in flight) and checks that
 * every outcome is linearizable: explained by some order of the operations, consistent with real time, run one at a
 * time on the same manager (the sequential model).
 *
 * <p>Why send and apply are two operations: a whole round as one operation is not atomic by design - the request's
 * topics are fixed when it goes out, the answer is published later - and Lincheck duly reports a round that asked
 * for no topic while a concurrent {@code awaitTopic} subscribed one (found in the first run of this test).
 *
 * <p>Complements {@link ManagerLincheckTest}, which splits the sender's send and receive and targets two known races;
 * this one covers the API surface together, on a ticker that moves 1 ms at every read so that every small budget runs
 * out (a wait that is never answered ends, and Lincheck can tell a hang from a timeout). Thread switches happen at
 * the manager's own shared fields, as there (the JDK's and JCTools' collections taken as atomic).
 *
 * <p>Runs in 40-80 s on a loaded 2-core machine (about 20 s of CPU); {@code -Dkmeta.lincheck.api.iterations=N} for
 * more scenarios.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
public class ManagerApiLincheckTest {
    private static final MetadataConfig CONFIG = MetadataConfig.from(Map.of("client.id", "lincheck-api",
            "kmeta.metadata.jitter", "0"));
    private static final int ITERATIONS = Integer.getInteger("kmeta.lincheck.api.iterations", 6);
    private static final int INVOCATIONS = Integer.getInteger("kmeta.lincheck.api.invocations", 30);

    private static final Set<String> SENDER_ONLY = Set.of(ResponseMerger.class.getName(),
            RefreshStateMachine.class.getName(), LeaderHints.class.getName(), WorldChanges.class.getName(),
            Diagnoser.class.getName(), Backoff.class.getName(), FakeBroker.class.getName(),
            RefreshRequest.class.getName(), RefreshResponse.class.getName());

    /** Topic "a" (2 partitions, broker i % 3 leads partition i at epoch 1) exists; "ghost" does not. */
    @Param(name = "topic", gen = IntGen.class, conf = "0:1")
    @Param(name = "partition", gen = IntGen.class, conf = "-1:2")
    @Param(name = "epoch", gen = IntGen.class, conf = "1:3")
    @Param(name = "version", gen = IntGen.class, conf = "0:3")
    @Param(name = "thread", gen = ThreadIdGen.class)
    public static class Api {
        private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
        private final Ticker ticker = new AdvancingTicker(nanos);
        private final FakeBroker broker = new FakeBroker().topic("a", 2, 1);
        private final MetadataManager manager = new MetadataManager(CONFIG, ticker);
        /** The version each scenario thread's last requestUpdate() returned. */
        private final int[] requested = {-1, -1, -1, -1, -1, -1, -1, -1};
        /** The sender's request on the wire (sender operations only). */
        private RefreshRequest inFlight;

        private static String name(int topic) {
            return topic == 0 ? "a" : "ghost";
        }

        /** The snapshot's version and what it says of a-0. */
        @Operation
        public String fetch() {
            Cluster c = manager.fetch();
            TopicMetadata a = c.topic("a");
            PartitionMetadata p = a == null ? null : a.partition(0);
            return "v" + c.version() + (p == null ? " a -" : " a0=" + p.leaderId() + "@" + p.leaderEpoch());
        }

        @Operation
        public int requestUpdate(@Param(name = "thread") int thread) {
            requested[thread] = manager.requestUpdate();
            return requested[thread];
        }

        /** awaitUpdate(the version my last requestUpdate() returned, 0 ms). */
        @Operation
        public String awaitRequested(@Param(name = "thread") int thread) {
            return awaitUpdate(requested[thread], 0);
        }

        @Operation
        public String awaitUpdateNow(@Param(name = "version") int version) {
            return awaitUpdate(version, 0);
        }

        @Operation
        public String awaitUpdateShort(@Param(name = "version") int version) {
            return awaitUpdate(version, 3);
        }

        private String awaitUpdate(int version, long maxBlockMs) {
            try {
                manager.awaitUpdate(version, manager.newDeadline(Duration.ofMillis(maxBlockMs)));
                return "ok";
            } catch (MetadataTimeoutException e) {
                return "timeout";
            } catch (MetadataClosedException e) {
                return "closed";
            }
        }

        @Operation
        public String awaitTopicNow(@Param(name = "topic") int topic, @Param(name = "partition") int partition) {
            return awaitTopic(name(topic), partition, 0);
        }

        @Operation
        public String awaitTopicShort(@Param(name = "topic") int topic, @Param(name = "partition") int partition) {
            return awaitTopic(name(topic), partition, 3);
        }

        private String awaitTopic(String topic, int partition, long budgetMs) {
            try {
                Cluster c = manager.awaitTopic(topic, partition, Deadline.after(Duration.ofMillis(budgetMs), ticker));
                TopicMetadata t = c.topic(topic);
                return "v" + c.version() + " " + t.partitionCount() + " partitions"
                        + (partition == MetadataClient.ANY_PARTITION ? "" : ", leader "
                        + t.partition(partition).leaderId());
            } catch (MetadataTimeoutException e) {
                return "timeout";
            } catch (MetadataClosedException e) {
                return "closed";
            }
        }

        /** A KIP-951 hint: broker 2 leads a-0 at {@code epoch} (the broker says broker 0 at epoch 1). */
        @Operation
        public void leaderHint(@Param(name = "epoch") int epoch) {
            manager.onLeaderHint("a", 0, 2, epoch, null);
        }

        @Operation
        public void invalidate(@Param(name = "topic") int topic) {
            manager.invalidate(name(topic), 0);
        }

        @Operation
        public void close() {
            manager.close();
        }

        /** The sender sends: poll, then the request that is due (past any backoff), if any. */
        @Operation(nonParallelGroup = "sender")
        public String send() {
            if (inFlight != null) {
                return "busy";
            }
            nanos.addAndGet(2_000_000_000L); // past any backoff: a wanted request is always due
            manager.poll(ticker.milliTime());
            inFlight = manager.beginRefresh(ticker.milliTime());
            return inFlight == null ? "idle " + manager.state() : describe(inFlight);
        }

        /** The sender's apply step: the broker's answer to the request in flight is merged and published. */
        @Operation(nonParallelGroup = "sender")
        public String receive() {
            RefreshRequest r = take();
            if (r == null) {
                return "nothing in flight";
            }
            manager.onResponse(r, broker.respond(r), ticker.milliTime());
            return "v" + manager.fetch().version();
        }

        /** The request in flight fails (disconnect, request timeout). */
        @Operation(nonParallelGroup = "sender")
        public String receiveFailure() {
            RefreshRequest r = take();
            if (r == null) {
                return "nothing in flight";
            }
            manager.onFailure(r, "lincheck: connection dropped", ticker.milliTime());
            return "failed " + manager.state();
        }

        private RefreshRequest take() {
            RefreshRequest r = inFlight;
            inFlight = null;
            return r;
        }

        private static String describe(RefreshRequest r) {
            return (r.isFull() ? "FULL" : "PARTIAL") + new TreeSet<>(r.topics());
        }
    }

    /** Moves 1 ms at every read: budgets run out, the sender's times move on. A class: Lincheck warns on a lambda. */
    static final class AdvancingTicker implements Ticker {
        private final AtomicLong nanos;

        AdvancingTicker(AtomicLong nanos) {
            this.nanos = nanos;
        }

        @Override
        public long nanoTime() {
            return nanos.addAndGet(1_000_000L);
        }
    }

    @Test
    void theWholeApiIsLinearizable() {
        new ModelCheckingOptions()
                .iterations(ITERATIONS)
                .invocationsPerIteration(INVOCATIONS)
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(2)
                .actorsAfter(2)
                .addGuarantee(ManagedStrategyGuaranteeKt.forClasses(ManagerApiLincheckTest::atomicForTheModel)
                        .allMethods().treatAsAtomic())
                .check(Api.class);
    }

    private static boolean atomicForTheModel(String className) {
        return className.startsWith("java.util.") && !className.equals("java.util.concurrent.locks.LockSupport")
                || className.startsWith("org.jctools.")
                || className.startsWith("org.slf4j.") || className.startsWith("dev.kmeta.cluster.")
                || SENDER_ONLY.contains(className);
    }
}
