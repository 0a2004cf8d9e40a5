package dev.kmeta.examples;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One partition's queue: one batch in flight, retries at the head, backoff skipped when the leader changed. */
class PartitionQueueTest {
    private static final int LEADER = 1;
    private static final int OTHER = 2;
    private static final int V = 7; // a snapshot version

    private static PendingRecord record(int i, long createdMs) {
        return new PendingRecord("t", 0, null, new byte[] {(byte) i}, createdMs, 1_000);
    }

    private static List<Integer> values(List<PendingRecord> records) {
        return records.stream().map(r -> (int) r.value[0]).collect(Collectors.toList());
    }

    @Test
    void oneBatchInFlightAndARetryGoesBackToTheHeadInOrder() {
        PartitionQueue q = new PartitionQueue("t", 0);
        for (int i = 0; i < 5; i++) {
            q.add(record(i, 0));
        }
        List<PendingRecord> first = q.drain(2 * record(0, 0).sizeInBytes());
        assertEquals(List.of(0, 1), values(first));
        assertFalse(q.sendableTo(LEADER, V, 0), "a batch is in flight");
        assertEquals(0, q.backoffLeftMs(0), "nothing failed");
        q.retry(first, LEADER, 100);
        assertEquals(40, q.backoffLeftMs(60), "what the loop may poll for");
        assertFalse(q.sendableTo(LEADER, V, 99), "backing off");
        assertTrue(q.sendableTo(LEADER, V, 100));
        assertEquals(List.of(0, 1, 2, 3, 4), values(q.drain(Integer.MAX_VALUE)), "the retried batch first");
        q.completed();
        assertTrue(q.isEmpty());
    }

    @Test
    void aNewLeaderSkipsTheBackoff() {
        PartitionQueue q = new PartitionQueue("t", 0);
        q.add(record(0, 0));
        q.retry(q.drain(Integer.MAX_VALUE), LEADER, 100);
        assertFalse(q.sendableTo(LEADER, V, 0));
        assertTrue(q.sendableTo(OTHER, V, 0), "a leader hint or fresh metadata named another leader");
    }

    @Test
    void aLeaderFoundStaleGetsTheBatchAgainOnlyFromANewerSnapshot() {
        PartitionQueue q = new PartitionQueue("t", 0);
        q.add(record(0, 0));
        q.retry(q.drain(Integer.MAX_VALUE), LEADER, 100, V); // NOT_LEADER_OR_FOLLOWER: a hint posted to kmeta
        assertFalse(q.sendableTo(LEADER, V, 100), "the backoff is over but the snapshot has not taken the hint in");
        assertFalse(q.sendableTo(LEADER, V, 10_000), "not even long after: a thread descheduled past the backoff");
        assertFalse(q.sendableTo(LEADER, V + 1, 99), "a newer snapshot, still backing off");
        assertTrue(q.sendableTo(LEADER, V + 1, 100), "a newer snapshot still names it: it may go");
        assertTrue(q.sendableTo(OTHER, V, 0), "the hint applied: another leader, at once");
        q.drain(Integer.MAX_VALUE);
        q.completed();
        q.add(record(1, 0));
        assertTrue(q.sendableTo(LEADER, V, 0), "an ack forgets the stale version");
    }

    @Test
    void aBatchTakesAtLeastOneRecordWhateverItsSize() {
        PartitionQueue q = new PartitionQueue("t", 0);
        q.add(record(0, 0));
        q.add(record(1, 0));
        assertEquals(List.of(0), values(q.drain(1)));
    }

    @Test
    void onlyWaitingRecordsExpireAndDrainAllTakesTheBatchInFlightToo() {
        PartitionQueue q = new PartitionQueue("t", 0);
        q.add(record(0, 0));
        q.add(record(1, 500));
        List<PendingRecord> inFlight = q.drain(1);
        assertTrue(q.expire(5_000).isEmpty(), "nothing expires while a batch is in flight");
        q.retry(inFlight, LEADER, 0);
        assertEquals(List.of(0), values(q.expire(1_000)), "record 0 was due at 1000, record 1 at 1500");
        assertEquals(List.of(1), values(q.drain(1)));
        q.add(record(2, 600));
        assertEquals(List.of(1, 2), values(q.drainAll()));
        assertTrue(q.isEmpty());
    }
}
