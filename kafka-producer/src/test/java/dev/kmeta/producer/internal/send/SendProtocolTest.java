package dev.kmeta.producer.internal.send;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.producer.internal.send.LeaderHold.Verdict;
import dev.kmeta.producer.internal.send.SendProtocol.State;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The send protocol's transitions, call by call in the order KafkaProducer makes them (the pinned traces of
 * compat-tests' ProducerCallTracesTest), on fakes of kmeta's waits and the leader hold: each step asserts the named
 * state the send is in and what the stand-in does (hide, hold, throw, which wait).
 */
class SendProtocolTest {
    private static final int ANY = MetadataClient.ANY_PARTITION;

    /** kmeta's waits: the snapshot's partition counts, what each wait does, and the waits made. */
    private static class FakeWaits implements SendProtocol.Waits {
        final Map<String, Integer> counts = new HashMap<>();
        final Map<String, TimeoutException> recreated = new HashMap<>();
        final List<String> waits = new ArrayList<>();
        /** What the next awaitTopic does: null, or a RuntimeException to throw; else the topic arrives (count 1). */
        RuntimeException onWait;

        @Override
        public int partitionCount(String topic) {
            return counts.getOrDefault(topic, -1);
        }

        @Override
        public TimeoutException beyondCount(String topic, int partition) {
            return recreated.get(topic);
        }

        @Override
        public void awaitTopic(String topic, int partition, Deadline deadline) {
            waits.add(topic + "/" + (partition == ANY ? "any" : String.valueOf(partition)));
            RuntimeException e = onWait;
            onWait = null;
            if (e != null) {
                throw e;
            }
            counts.merge(topic, Math.max(1, partition + 1), Math::max);
        }

        @Override
        public void awaitVersion(int version, long timeoutMs) {
            waits.add("version>" + version);
        }

        @Override
        public void awaitConfirmed(List<String> topics, long timeoutMs) {
            waits.add("confirmed" + topics);
        }
    }

    /**
     * The leader hold: a verdict per topic (unset: UNKNOWN_TOPIC while the fake waits have no count for it, as
     * LeaderHold says of a topic kmeta does not have; else SENDABLE), and the holds asked for.
     */
    private final class FakeLeaders implements SendProtocol.Leaders {
        final Map<String, Verdict> verdicts = new HashMap<>();
        final List<String> holds = new ArrayList<>();
        TimeoutException holdEnds;
        boolean holdInterrupted;
        boolean networkThread;

        @Override
        public boolean isNetworkThread() {
            return networkThread;
        }

        @Override
        public Verdict verdict(String topic, int partition) {
            return verdicts.getOrDefault(topic, waits.counts.containsKey(topic) ? Verdict.SENDABLE
                    : Verdict.UNKNOWN_TOPIC);
        }

        @Override
        public TimeoutException hold(String topic, int partition, boolean settle, long sinceNs)
                throws InterruptedException {
            holds.add(topic + "/" + (partition == ANY ? "any" : String.valueOf(partition)) + (settle ? " settle" : ""));
            if (holdInterrupted) {
                throw new InterruptedException("interrupted while held");
            }
            return holdEnds;
        }
    }

    private final FakeWaits waits = new FakeWaits();
    private final FakeLeaders leaders = new FakeLeaders();
    private final SendProtocol producer = new SendProtocol(waits, leaders, 100, Ticker.system());

    @BeforeEach
    void aFreshThreadState() {
        new SendProtocol(waits, leaders, 0, Ticker.system()).onSend("reset", ANY, false); // leaves whatever an earlier test left
        assertEquals(State.SENT, SendProtocol.state());
    }

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    /** The stand-in's fetch() as ProducerBridge makes it: true when it shows the send's topic absent. */
    private static boolean fetch(SendProtocol p) {
        return p.fetchHidesTopic() || p.hidesArrivedTopic();
    }

    /**
     * The producer's next fetch() shows the send's topic absent (TOPIC_HIDDEN), the add(topic) KafkaProducer makes next
     * holds it with settling (the only hold asked), and the send goes on (SENT).
     */
    private void assertHiddenThenHeldWithSettling(SendProtocol p, String topic) {
        assertTrue(fetch(p));
        assertEquals(State.TOPIC_HIDDEN, SendProtocol.state());
        p.add(topic);
        assertEquals(List.of(topic + "/any settle"), leaders.holds);
        assertEquals(State.SENT, SendProtocol.state());
    }

    /** KafkaProducer's waitOnMetadata loop body after its first fetch/add: add, request, await, fetch, maybeThrow. */
    private void waitRound(SendProtocol p, String topic, int version) throws InterruptedException {
        p.add(topic);
        p.requestUpdateForTopic(topic);
        p.awaitUpdate(version, 1_000);
        assertFalse(fetch(p));
        TimeoutException e = p.takeTimeout(topic);
        if (e != null) {
            throw e;
        }
    }

    @Test
    void aNewTopicIsWaitedForThenLookedAt() throws Exception {
        producer.onSend("new", ANY, true);
        assertEquals(State.FIRST_LOOK, SendProtocol.state(), "kmeta does not have the topic");
        assertFalse(fetch(producer));
        assertEquals(State.SENT, SendProtocol.state(), "still unknown at the first fetch: the wait follows");
        assertEquals("new", producer.viewTopic());
        producer.add("new");
        producer.requestUpdateForTopic("new");
        assertEquals(State.AWAITING_TOPIC, SendProtocol.state());
        producer.awaitUpdate(1, 1_000);
        assertEquals(List.of("new/any"), waits.waits, "kmeta's targeted wait for the topic");
        assertEquals(State.LOOKING, SendProtocol.state());
        assertFalse(fetch(producer));
        assertNull(producer.takeTimeout("new"));
        assertEquals(State.LOOKING, SendProtocol.state());
    }

    @Test
    void aKnownTopicIsLookedAtWithoutAWait() throws Exception {
        waits.counts.put("known", 3);
        producer.onSend("known", 2, true);
        assertFalse(fetch(producer));
        producer.add("known");
        assertEquals(State.SENT, SendProtocol.state(), "a cache hit: nothing else");
        producer.requestUpdateForTopic("known"); // the view lagged: KafkaProducer waits once
        producer.awaitUpdate(7, 1_000);
        assertEquals(List.of(), waits.waits, "the first look at a version is at once");
        assertEquals(State.LOOKING, SendProtocol.state());
    }

    @Test
    void aMissingTopicsTimeoutIsKeptAndThrownByTheNextFetch() throws Exception {
        TimeoutException kmeta = new TimeoutException("kmeta's diagnosis");
        waits.onWait = kmeta;
        producer.onSend("missing", ANY, true);
        assertFalse(fetch(producer));
        producer.add("missing");
        producer.requestUpdateForTopic("missing");
        producer.awaitUpdate(1, 1_000); // returns: KafkaProducer would replace the exception's message
        assertEquals(State.TIMEOUT_KEPT, SendProtocol.state());
        assertSame(kmeta, producer.peekTimeout("missing"), "getError reads it");
        assertSame(kmeta, producer.peekTimeout("missing"), "twice");
        assertNull(producer.peekTimeout("other"));
        assertSame(kmeta, assertThrows(TimeoutException.class, () -> fetch(producer)));
        assertEquals(State.IDLE, SendProtocol.state());
        assertNull(producer.takeTimeout("missing"), "thrown once");
    }

    @Test
    void aKeptTimeoutNotFetchedIsTakenByMaybeThrowOrTheInterceptor() throws Exception {
        waits.onWait = new TimeoutException("kmeta's diagnosis");
        producer.onSend("missing", ANY, true);
        producer.requestUpdateForTopic("missing");
        producer.awaitUpdate(1, 1_000);
        assertNull(producer.takeTimeout("other"));
        assertEquals(State.TIMEOUT_KEPT, SendProtocol.state());
        assertTrue(producer.takeTimeout("missing") != null);
        assertEquals(State.IDLE, SendProtocol.state());
    }

    @Test
    void aPartitionBeyondTheCountIsWaitedForAtTheSecondAwaitOfAVersion() throws Exception {
        waits.counts.put("narrow", 2);
        producer.onSend("narrow", 5, true);
        assertFalse(fetch(producer));
        producer.add("narrow");
        producer.requestUpdateForTopic("narrow");
        assertEquals(State.AWAITING_TOPIC, SendProtocol.state());
        producer.awaitUpdate(4, 1_000);
        assertEquals(List.of(), waits.waits, "version 4 not looked at yet: the producer looks first");
        assertEquals(State.LOOKING, SendProtocol.state());
        assertFalse(fetch(producer));
        assertNull(producer.takeTimeout("narrow"));
        producer.add("narrow");
        producer.requestUpdateForTopic("narrow");
        assertEquals(State.AWAITING_PARTITION, SendProtocol.state());
        producer.awaitUpdate(4, 1_000);
        assertEquals(List.of("narrow/5"), waits.waits, "the second await at version 4 waits for partition 5");
        assertEquals(State.LOOKING, SendProtocol.state());
        producer.requestUpdateForTopic("narrow");
        producer.awaitUpdate(5, 1_000);
        assertEquals(1, waits.waits.size(), "a newer version is looked at first");
    }

    @Test
    void aSendToUnreachableLeadersIsHiddenByItsFirstFetchAndHeldByTheNextAdd() throws Exception {
        waits.counts.put("far", 1);
        leaders.verdicts.put("far", Verdict.UNREACHABLE);
        producer.onSend("far", ANY, true);
        assertEquals(State.HOLD_ARMED, SendProtocol.state());
        producer.add("far");
        assertEquals(List.of(), leaders.holds, "add before the hiding fetch holds nothing");
        assertTrue(fetch(producer), "waitOnMetadata's first fetch sees the topic absent");
        assertEquals(State.TOPIC_HIDDEN, SendProtocol.state());
        producer.add("other");
        assertEquals(State.TOPIC_HIDDEN, SendProtocol.state(), "another topic's add holds nothing");
        producer.add("far");
        assertEquals(List.of("far/any"), leaders.holds, "held, without settling");
        assertEquals(State.SENT, SendProtocol.state(), "a leader became reachable: through");
        assertFalse(fetch(producer), "hidden once");
        producer.add("far");
        assertEquals(1, leaders.holds.size(), "held once");
        waitRound(producer, "far", 9); // KafkaProducer's wait goes on to the real view
        assertEquals(State.LOOKING, SendProtocol.state());
    }

    @Test
    void aHeldSendThatFindsNoLeaderThrowsKmetasTimeout() {
        waits.counts.put("far", 1);
        leaders.verdicts.put("far", Verdict.UNREACHABLE);
        leaders.holdEnds = new TimeoutException("ADVERTISED_LISTENER_UNREACHABLE");
        producer.onSend("far", 0, true);
        assertTrue(fetch(producer));
        assertSame(leaders.holdEnds, assertThrows(TimeoutException.class, () -> producer.add("far")));
        assertEquals(State.IDLE, SendProtocol.state());
    }

    @Test
    void aSendIsNotHeldOnTheNetworkThreadNorByAClosedProducer() {
        leaders.verdicts.put("far", Verdict.UNREACHABLE);
        producer.onSend("far", ANY, false);
        assertEquals(State.SENT, SendProtocol.state(), "closed");
        leaders.networkThread = true;
        producer.onSend("far", ANY, true);
        assertEquals(State.SENT, SendProtocol.state(), "the network thread");
    }

    @Test
    void aSendWhoseTopicArrivedWithUnprovenLeadersIsArmedWithSettling() throws Exception {
        leaders.verdicts.put("late", Verdict.UNKNOWN_TOPIC);
        producer.onSend("late", ANY, true);
        assertEquals(State.FIRST_LOOK, SendProtocol.state(), "unknown topic: the metadata wait's business");
        assertFalse(fetch(producer));
        assertEquals(State.SENT, SendProtocol.state(), "still unknown at the first fetch: the wait follows");
        producer.add("late");
        producer.requestUpdateForTopic("late");
        leaders.verdicts.put("late", Verdict.UNSETTLED); // it arrives with leaders kmeta has not tried
        producer.awaitUpdate(1, 1_000);
        assertEquals(State.HOLD_ARMED, SendProtocol.state(), "the topic arrived, its leaders not tried yet");
        assertHiddenThenHeldWithSettling(producer, "late");
    }

    /**
     * A fresh producer's first send whose topic came in kmeta's first answer before the send looked (no metadata wait),
     * its leader not tried yet: held with settling at once, as a send whose topic arrived is - it slipped through and
     * expired at delivery.timeout.ms when its leader's address was a closed port (seen in a fresh-clone CI run).
     */
    @Test
    void aKnownTopicWhoseLeadersAreNotTriedYetIsArmedWithSettlingAtOnce() throws Exception {
        leaders.verdicts.put("early", Verdict.UNSETTLED);
        producer.onSend("early", ANY, true);
        assertEquals(State.HOLD_ARMED, SendProtocol.state());
        assertHiddenThenHeldWithSettling(producer, "early");
    }

    /**
     * The topic arrives between onSend (kmeta did not have it) and the send's first fetch() - kmeta's answer to
     * another send's request: the fetch hides it and the add holds with settling. Without the second look the fetch
     * showed the topic and KafkaProducer sent at once, with no wait to hold in.
     */
    @Test
    void aTopicThatArrivesBeforeTheSendsFirstFetchIsHiddenAndHeldWithSettling() throws Exception {
        leaders.verdicts.put("race", Verdict.UNKNOWN_TOPIC);
        producer.onSend("race", ANY, true);
        assertEquals(State.FIRST_LOOK, SendProtocol.state());
        leaders.verdicts.put("race", Verdict.UNREACHABLE); // it arrives, its leader failing already
        assertHiddenThenHeldWithSettling(producer, "race");
    }

    /**
     * The topic arrives between the send's first fetch() (which missed it) and its awaitUpdate - kmeta's answer to
     * the request the add(topic) in between started, on a loaded machine: the first look at the version arms the
     * hold with settling; once held, the next round of KafkaProducer's wait looks at the view (not armed again).
     * Seen in a fresh-clone CI run: a first send to a leader at a closed port expired at delivery.timeout.ms (30 s)
     * instead of failing at max.block.ms.
     */
    @Test
    void aTopicThatArrivesBeforeTheWaitIsArmedWithSettlingOnce() throws Exception {
        leaders.verdicts.put("race", Verdict.UNKNOWN_TOPIC);
        producer.onSend("race", ANY, true);
        assertFalse(fetch(producer));
        producer.add("race");
        producer.requestUpdateForTopic("race");
        waits.counts.put("race", 1);
        leaders.verdicts.put("race", Verdict.UNSETTLED);
        producer.awaitUpdate(1, 1_000);
        assertEquals(List.of(), waits.waits, "no wait: the topic is there");
        assertEquals(State.HOLD_ARMED, SendProtocol.state());
        assertHiddenThenHeldWithSettling(producer, "race");
        waitRound(producer, "race", 1); // the hold let it through, the leader still unproven: look, do not re-arm
        assertEquals(State.LOOKING, SendProtocol.state());
        assertEquals(List.of("race/any settle"), leaders.holds);
    }

    /**
     * A send that KafkaProducer failed before its first fetch (a closed producer) or during its wait: the state that
     * waited for its next call ends (onSendError), so that a partitionsFor on the thread is not hidden for it.
     */
    @Test
    void aSendThatFailedInKafkaProducerLeavesNothingArmed() throws Exception {
        producer.onSend("gone", ANY, true);
        assertEquals(State.FIRST_LOOK, SendProtocol.state());
        producer.sendFailed();
        assertEquals(State.IDLE, SendProtocol.state());
        leaders.verdicts.put("gone", Verdict.UNREACHABLE); // it arrives: a later fetch on this thread is not about it
        assertFalse(fetch(producer));

        leaders.verdicts.put("far", Verdict.UNREACHABLE);
        producer.onSend("far", ANY, true);
        assertEquals(State.HOLD_ARMED, SendProtocol.state());
        producer.sendFailed();
        assertEquals(State.IDLE, SendProtocol.state());
        assertFalse(fetch(producer));
        assertEquals(List.of(), leaders.holds);
    }

    @Test
    void aRecreatedTopicsVanishedPartitionFailsAtOnce() throws Exception {
        TimeoutException recreated = new TimeoutException("TOPIC_RECREATED");
        waits.counts.put("again", 2);
        waits.recreated.put("again", recreated);
        producer.onSend("again", 4, true);
        assertFalse(fetch(producer));
        producer.add("again");
        producer.requestUpdateForTopic("again");
        producer.awaitUpdate(3, 1_000);
        assertEquals(List.of(), waits.waits, "no wait for partitions");
        assertEquals(State.TIMEOUT_KEPT, SendProtocol.state());
        assertSame(recreated, assertThrows(TimeoutException.class, () -> fetch(producer)));
        assertEquals(State.IDLE, SendProtocol.state());
    }

    @Test
    void twoProducersOnOneThreadActOnlyOnTheirOwnState() throws Exception {
        SendProtocol other = new SendProtocol(waits, leaders, 100, Ticker.system());
        waits.onWait = new TimeoutException("kmeta's diagnosis");
        producer.onSend("missing", ANY, true);
        producer.requestUpdateForTopic("missing");
        producer.awaitUpdate(1, 1_000);
        assertEquals(State.TIMEOUT_KEPT, SendProtocol.state());
        assertFalse(fetch(other), "the other producer's fetch throws nothing");
        assertNull(other.takeTimeout("missing"));
        assertNull(other.peekTimeout("missing"));
        other.awaitUpdate(2, 1_000);
        assertEquals("version>2", waits.waits.get(waits.waits.size() - 1), "no request on it: a version wait");
        assertEquals(State.TIMEOUT_KEPT, SendProtocol.state());

        waits.counts.put("far", 1);
        leaders.verdicts.put("far", Verdict.UNREACHABLE);
        other.onSend("far", ANY, true); // a new send starts over, whichever producer
        assertEquals(State.HOLD_ARMED, SendProtocol.state());
        assertFalse(fetch(producer), "armed by the other producer: this one's fetch shows the topic");
        assertTrue(fetch(other));
        producer.add("far");
        assertEquals(State.TOPIC_HIDDEN, SendProtocol.state(), "this producer's add holds nothing");
        other.add("far");
        assertEquals(State.SENT, SendProtocol.state());
    }

    @Test
    void anInterruptedThreadEndsItsSend() throws Exception {
        waits.onWait = new InterruptException("interrupted");
        producer.onSend("new", ANY, true);
        producer.requestUpdateForTopic("new");
        assertThrows(InterruptedException.class, () -> producer.awaitUpdate(1, 1_000));
        assertFalse(Thread.currentThread().isInterrupted(), "InterruptedException's contract: status cleared");
        assertEquals(State.IDLE, SendProtocol.state());

        waits.counts.put("far", 1);
        leaders.verdicts.put("far", Verdict.UNREACHABLE);
        leaders.holdInterrupted = true;
        producer.onSend("far", ANY, true);
        assertTrue(fetch(producer));
        assertThrows(InterruptException.class, () -> producer.add("far"));
        assertTrue(Thread.interrupted(), "InterruptException sets the status again");
        assertEquals(State.IDLE, SendProtocol.state());
    }

    @Test
    void aVersionWaitAfterAddTopics() throws Exception {
        producer.versionWait();
        assertEquals(State.VERSION_WAIT, SendProtocol.state());
        producer.awaitUpdate(3, 1_000);
        assertEquals(List.of("version>3"), waits.waits);
        assertThrows(TimeoutException.class, () -> {
            SendProtocol timingOut = new SendProtocol(new FakeWaits() {
                @Override
                public void awaitVersion(int version, long timeoutMs) {
                    throw new TimeoutException("version wait");
                }
            }, leaders, 100, Ticker.system());
            timingOut.versionWait();
            timingOut.awaitUpdate(3, 1_000);
        }, "a version wait's timeout is thrown, not kept");
    }

    @Test
    void aConfirmWaitAfterAddTopicsWaitsForTheTopicsAndThrowsItsTimeout() throws Exception {
        producer.confirmWait(List.of("input"));
        assertEquals(State.CONFIRMING, SendProtocol.state());
        producer.awaitUpdate(3, 1_000);
        assertEquals(List.of("confirmed[input]"), waits.waits, "a wait for the topics, not for the next version");
        assertEquals(State.LOOKING, SendProtocol.state());
        producer.awaitUpdate(4, 1_000); // a later awaitUpdate without a new add(topics) is a plain version wait
        assertEquals(List.of("confirmed[input]", "version>4"), waits.waits);
        SendProtocol timingOut = new SendProtocol(new FakeWaits() {
            @Override
            public void awaitConfirmed(List<String> topics, long timeoutMs) {
                throw new TimeoutException("confirm wait");
            }
        }, leaders, 100, Ticker.system());
        timingOut.confirmWait(List.of("input"));
        assertThrows(TimeoutException.class, () -> timingOut.awaitUpdate(3, 1_000),
                "sendOffsetsToTransaction gets the timeout: KafkaProducer does not replace it there");
    }

    /**
     * Two live threads whose ids share a slot keep their own states: the second finds the first's Send in the slot,
     * sees another thread id and reads its own (without that check it would send on the first thread's state, and
     * the first's armed hold would be gone).
     */
    @Test
    void twoThreadsSharingASlotKeepTheirOwnStates() throws Exception {
        waits.counts.put("far", 1);
        leaders.verdicts.put("far", Verdict.UNREACHABLE);
        CountDownLatch armed = new CountDownLatch(1);
        CountDownLatch secondDone = new CountDownLatch(1);
        AtomicReference<Object> firstSaw = new AtomicReference<>();
        AtomicReference<Object> secondSaw = new AtomicReference<>();
        Thread first = new Thread(() -> {
            producer.onSend("far", ANY, true);
            armed.countDown();
            try {
                secondDone.await();
                firstSaw.set(List.of(SendProtocol.state(), SendProtocol.inSlot(), fetch(producer)));
            } catch (InterruptedException e) {
                firstSaw.set(e);
            }
        }, "slot-first");
        Thread second = inTheSlotOf(first, () -> {
            producer.onSend("near", ANY, false);
            secondSaw.set(List.of(SendProtocol.state(), SendProtocol.inSlot()));
            secondDone.countDown();
        });
        first.start();
        assertTrue(armed.await(10, TimeUnit.SECONDS));
        second.start();
        second.join(10_000);
        first.join(10_000);
        assertEquals(List.of(State.SENT, false), secondSaw.get(), "the second thread's own state, not in the slot");
        assertEquals(List.of(State.HOLD_ARMED, true, true), firstSaw.get(),
                "the first thread's armed send is untouched: its fetch hides the topic");
    }

    /** A thread whose slot's thread died takes the slot; one whose slot a live thread holds does not. */
    @Test
    void aDeadThreadsSlotIsTakenByTheNextThreadThatSends() throws Exception {
        AtomicReference<Object> firstSaw = new AtomicReference<>();
        AtomicReference<Object> secondSaw = new AtomicReference<>();
        Thread first = new Thread(() -> {
            producer.onSend("t", ANY, false);
            firstSaw.set(SendProtocol.inSlot());
        }, "slot-first");
        Thread second = inTheSlotOf(first, () -> {
            producer.onSend("t", ANY, false);
            secondSaw.set(List.of(SendProtocol.state(), SendProtocol.inSlot()));
        });
        first.start();
        first.join(10_000);
        assertFalse(first.isAlive());
        second.start();
        second.join(10_000);
        assertEquals(true, firstSaw.get());
        assertEquals(List.of(State.SENT, true), secondSaw.get());
    }

    /** A thread in a counted state of a producer nobody refers to any more does not keep it reachable. */
    @Test
    void aThreadsCountedStatePinsNoProducer() {
        SendProtocol dropped = new SendProtocol(waits, leaders, 100, Ticker.system());
        waits.counts.put("far", 1);
        leaders.verdicts.put("far", Verdict.UNREACHABLE);
        dropped.onSend("far", ANY, true);
        assertEquals(State.HOLD_ARMED, SendProtocol.state());
        WeakReference<SendProtocol> ref = new WeakReference<>(dropped);
        dropped = null;
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            System.gc();
            return ref.get() == null;
        });
        producer.onSend("t", ANY, false); // leaves the dropped producer's state: nothing to count down
        assertEquals(State.SENT, SendProtocol.state());
    }

    /** A new, unstarted thread running {@code body} whose id maps to the same slot as {@code other}'s. */
    private static Thread inTheSlotOf(Thread other, Runnable body) {
        for (int i = 0; i < 100_000; i++) { // ids grow by one per thread made: a full turn is about 1,024 threads
            Thread t = new Thread(body, "slot-second");
            if (SendProtocol.slotOf(t.getId()) == SendProtocol.slotOf(other.getId())) {
                return t;
            }
        }
        throw new AssertionError("no thread id shared the slot of " + other.getId());
    }
}
