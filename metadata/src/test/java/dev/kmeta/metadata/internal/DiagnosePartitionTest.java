package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.ConnectionEvidence.Problem;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.Diagnosis.Cause;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MetadataManager#diagnosePartition}: what a producer asks of a record that waits for its partition - null
 * while the leader is fine, else why (the fake broker's topic "orders" has partition i led by broker i at
 * 127.0.0.1:909(2+i)).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DiagnosePartitionTest {
    private static ConnectionEvidence.Record bootstrapAnswered(Harness h) {
        EvidenceRecorder evidence = h.manager.connections();
        ConnectionEvidence.Record boot = evidence.record("-1", "127.0.0.1:9092", true);
        evidence.attempt(boot, h.now());
        evidence.answer(boot, h.now());
        return boot;
    }

    @Test
    void eachPartitionIsJudgedByItsOwnLeader() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 3, 0);
            h.learn("orders");
            bootstrapAnswered(h);
            EvidenceRecorder evidence = h.manager.connections();
            for (int p = 0; p < 3; p++) {
                assertNull(h.manager.diagnosePartition("orders", p), "nothing recorded against leader " + p);
            }
            // Broker 0 works; broker 1's advertised address refuses; broker 2 worked and is gone now.
            evidence.connected(evidence.record("0", "127.0.0.1:9092", false), h.now());
            ConnectionEvidence.Record one = evidence.record("1", "127.0.0.1:9093", false);
            evidence.attempt(one, h.now());
            evidence.problem(one, Problem.DISCONNECTED, null, h.now());
            ConnectionEvidence.Record two = evidence.record("2", "127.0.0.1:9094", false);
            evidence.connected(two, h.now());
            h.ticker.advanceMs(10);
            evidence.problem(two, Problem.DISCONNECTED, null, h.now());
            evidence.attempt(two, h.now());
            evidence.problem(two, Problem.DISCONNECTED, null, h.now());

            assertNull(h.manager.diagnosePartition("orders", 0));
            Diagnosis advertised = h.manager.diagnosePartition("orders", 1);
            assertEquals(Cause.ADVERTISED_LISTENER_UNREACHABLE, advertised.cause(), advertised.message());
            assertTrue(advertised.seen().startsWith("broker 1 advertises 127.0.0.1:9093, unreachable from here"),
                    advertised.seen());
            assertTrue(advertised.message().contains("for partition 1 of topic orders"), advertised.message());
            Diagnosis gone = h.manager.diagnosePartition("orders", 2);
            assertEquals(Cause.BROKERS_UNREACHABLE, gone.cause(), gone.message());
            assertTrue(gone.seen().startsWith("broker 2 at 127.0.0.1:9094, the leader of partition 2"), gone.seen());
        }
    }

    @Test
    void aPartitionWithoutALeaderAndOneBeyondTheCountSaySo() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 3, 0);
            h.learn("orders");
            h.broker.leader("orders", 1, -1, 1);
            h.manager.invalidate("orders", 1);
            h.advance(1_000);
            h.step();
            assertEquals(-1, h.manager.fetch().partition("orders", 1).leaderId(), "the answer was applied");

            assertEquals(Cause.LEADER_NOT_AVAILABLE, h.manager.diagnosePartition("orders", 1).cause());
            assertEquals(Cause.PARTITION_OUT_OF_RANGE, h.manager.diagnosePartition("orders", 7).cause());
            assertNull(h.manager.diagnosePartition("orders", 0));
        }
    }

    /** An expired record always gets a reason: the partition's own, else its healthy-looking leader named. */
    @Test
    void anUndeliveredRecordAlwaysGetsAReasonNamingItsLeader() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 2, 0);
            h.learn("orders");
            bootstrapAnswered(h);
            EvidenceRecorder evidence = h.manager.connections();
            ConnectionEvidence.Record zero = evidence.record("0", "127.0.0.1:9092", false);
            evidence.connected(zero, h.now());
            evidence.answer(zero, h.now());
            h.ticker.advanceMs(1_500);

            assertNull(h.manager.diagnosePartition("orders", 0), "nothing speaks against leader 0");
            Diagnosis slow = h.manager.diagnoseUndelivered("orders", 0);
            assertEquals(Cause.LEADER_NOT_RESPONDING, slow.cause(), slow.message());
            assertTrue(slow.seen().startsWith("broker 0 at 127.0.0.1:9092 leads partition 0 and nothing recorded "
                    + "speaks against it (its last answer to kmeta came 1500 ms ago)"), slow.seen());
            assertTrue(slow.message().contains("for partition 0 of topic orders"), slow.message());
            Diagnosis never = h.manager.diagnoseUndelivered("orders", 1);
            assertEquals(Cause.LEADER_NOT_RESPONDING, never.cause());
            assertTrue(never.seen().contains("kmeta has had no reason to ask it anything"), never.seen());

            // A partition kmeta has a reason for keeps that reason.
            assertEquals(Cause.PARTITION_OUT_OF_RANGE, h.manager.diagnoseUndelivered("orders", 5).cause());
        }
    }
}
