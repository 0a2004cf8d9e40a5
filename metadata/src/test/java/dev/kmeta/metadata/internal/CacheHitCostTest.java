package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the metrics must not cost: an {@code awaitTopic} cache hit allocates nothing and moves no counter and no
 * age (the usage stamp's one-second granularity is the idle-expiry tests' business). The allocation bound is a few KB so that a
 * stray JVM allocation cannot make it flaky, while one allocation per hit (at least 1.6 MB over the loop) cannot
 * pass.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CacheHitCostTest {
    private static final int ROUNDS = 100_000;
    private static final long BOUND_BYTES = 4096;

    @Test
    void aCacheHitAllocatesNothingAndCountsNothing() throws Exception {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 4, 0);
            h.step();
            h.learn("orders");
            Deadline deadline = h.deadline(1_000);
            Cluster expected = h.manager.fetch();
            hits(h, deadline, ROUNDS); // warm
            Counters c = h.manager.counters();
            long[] countersBefore = {c.waitersNow(), c.waitTimeNsTotal(), c.requestsCoalesced(), c.waitTimeouts(),
                c.requestsSent()};
            long ageBefore = h.manager.topicAgeMs("orders");

            long before = threads.getCurrentThreadAllocatedBytes();
            Cluster last = hits(h, deadline, ROUNDS);
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;

            assertSame(expected, last);
            assertTrue(allocated < BOUND_BYTES, ROUNDS + " hits allocated " + allocated + " bytes");
            assertEquals(ageBefore, h.manager.topicAgeMs("orders"), "a hit is no refresh");
            long[] countersAfter = {c.waitersNow(), c.waitTimeNsTotal(), c.requestsCoalesced(), c.waitTimeouts(),
                c.requestsSent()};
            assertEquals(Arrays.toString(countersBefore), Arrays.toString(countersAfter));
        }
    }

    /**
     * A producer asks for the diagnosis of every record it checks: for a partition whose leader is fine that must
     * cost what a cache hit costs - nothing allocated.
     */
    @Test
    void theDiagnosisOfAHealthyPartitionAllocatesNothing() throws Exception {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 4, 0);
            h.step();
            h.learn("orders");
            EvidenceRecorder evidence = h.manager.connections();
            for (int id = 0; id < 3; id++) { // every leader connected once, one of them dropped and back since
                dev.kmeta.metadata.ConnectionEvidence.Record r = evidence.record(Integer.toString(id),
                        "127.0.0.1:" + (9092 + id), false);
                evidence.connected(r, h.now());
            }
            diagnoses(h, ROUNDS); // warm

            long before = threads.getCurrentThreadAllocatedBytes();
            int inDoubt = diagnoses(h, ROUNDS);
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;

            assertEquals(0, inDoubt);
            assertTrue(allocated < BOUND_BYTES, ROUNDS + " diagnoses allocated " + allocated + " bytes");
        }
    }

    private static int diagnoses(Harness h, int rounds) {
        int inDoubt = 0;
        for (int i = 0; i < rounds; i++) {
            if (h.manager.diagnosePartition("orders", i & 3) != null) {
                inDoubt++;
            }
        }
        return inDoubt;
    }

    private static Cluster hits(Harness h, Deadline deadline, int rounds) {
        Cluster last = null;
        for (int i = 0; i < rounds; i++) {
            last = h.manager.awaitTopic("orders", i & 3, deadline);
        }
        return last;
    }
}
