package dev.kmeta.producer.internal.send;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.Ticker;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The KafkaProducer route's send protocol: what a send on a sending thread is doing, and what each stand-in call
 * does about it. KafkaProducer calls the stand-in in sequence on the sending thread ({@code send()}: the
 * interceptor's {@code onSend}, then {@code waitOnMetadata}: {@code fetch, add, [add, requestUpdateForTopic,
 * awaitUpdate, fetch, maybeThrowExceptionForTopic]*}); this class is the one place that keeps what one call tells
 * the next, one {@link State} per thread, and {@link dev.kmeta.producer.internal.ProducerBridge} asks it at each
 * call.
 *
 * <pre>
 * call (on this producer)          from state                     to state
 * interceptor onSend(topic, p)     any                            HOLD_ARMED  (leaders UNREACHABLE, or UNSETTLED:
 *                                                                              with settling; not the network
 *                                                                              thread, producer open)
 *                                                                 FIRST_LOOK  (kmeta does not have the topic)
 *                                                                 SENT        otherwise
 * fetch()                          HOLD_ARMED                     TOPIC_HIDDEN (shows the topic absent)
 *                                  FIRST_LOOK, the topic arrived, TOPIC_HIDDEN (with settling; the verdict is read
 *                                  its leaders not proven                      after the view)
 *                                  FIRST_LOOK otherwise           SENT
 *                                  TIMEOUT_KEPT                   IDLE        (throws the kept timeout)
 *                                  other                          unchanged   (the send's topic's view)
 * add(topic)                       TOPIC_HIDDEN, its topic        HOLDING -&gt; SENT (a leader reachable: through)
 *                                                                         -&gt; IDLE (throws kmeta's timeout at
 *                                                                              max.block.ms, or InterruptException)
 *                                  other                          unchanged   (subscribe only)
 * add(topics) (4.4), one missing   any                            VERSION_WAIT
 * add(topics) (4.4), one known but any                            CONFIRMING  (issue 37: this producer never saw it
 * not confirmed for this producer                                              described since it first asked)
 * requestUpdateForTopic(topic)     any                            AWAITING_PARTITION (same topic, a version looked
 *                                                                              at already: the next wait at it is
 *                                                                              for the record's partition)
 *                                                                 AWAITING_TOPIC otherwise
 * awaitUpdate(v, budget)           VERSION_WAIT                   unchanged   (kmeta's version wait)
 *                                  CONFIRMING                     LOOKING     (until an answer described them)
 *                                  AWAITING_*, topic absent       LOOKING     (waited for the topic)
 *                                                                 HOLD_ARMED  (it arrived, its leaders not proven:
 *                                                                              armed with settling)
 *                                  AWAITING_*, first look at v,   HOLD_ARMED  (it arrived after the fetch that
 *                                  the send's topic, its leaders               missed it: armed with settling)
 *                                  not proven
 *                                  AWAITING_*, first look at v    LOOKING     (returns at once)
 *                                  AWAITING_PARTITION, at v again LOOKING     (waited for the partition)
 *                                  AWAITING_*, a partition the    TIMEOUT_KEPT (issue 27: TOPIC_RECREATED)
 *                                  re-created topic lacks
 *                                  AWAITING_*, kmeta timed out    TIMEOUT_KEPT (returns: KafkaProducer would
 *                                                                              replace the exception's message)
 *                                  AWAITING_*, interrupted        IDLE        (InterruptedException)
 * maybeThrowExceptionForTopic(t)   TIMEOUT_KEPT for t             IDLE        (throws it)
 * interceptor onSendError          FIRST_LOOK, HOLD_ARMED,        IDLE        (the send failed in KafkaProducer)
 *                                  TOPIC_HIDDEN
 * getError(t)                      TIMEOUT_KEPT for t             unchanged   (its Kafka error code)
 * </pre>
 *
 * <p>The waits give up {@code giveUpEarlyMs} before the producer's budget (counted from requestUpdateForTopic), so
 * kmeta's diagnosed timeout reaches the application: kept, and thrown by the {@code fetch()} KafkaProducer makes
 * right after awaitUpdate (before it reads its own clock), or by maybeThrowExceptionForTopic. A send held for an
 * unreachable leader ({@link LeaderHold}, issue 14) is held in the {@code add(topic)} that follows the fetch that hid
 * its topic, outside the wait whose TimeoutException KafkaProducer replaces. A call on another producer than the one
 * a state belongs to does not act on it (two producers on one thread); the next onSend or requestUpdateForTopic on
 * any producer starts over.
 *
 * <p>One per {@link dev.kmeta.producer.internal.ProducerBridge}; thread-safe: a thread's state is confined to it
 * (found by thread id, {@link #SLOTS}); it refers to no bridge, hold or kmeta object (weak marks, strings,
 * exceptions), so a thread that sent through a producer since closed pins nothing of it. The states that act on a
 * later call (HOLD_ARMED, TOPIC_HIDDEN, TIMEOUT_KEPT) are counted per producer: while none is,
 * {@link #fetchHidesTopic} and {@link #add} read no thread state. Nothing here allocates on a cache hit.
 */
public final class SendProtocol {
    /** What a thread's send on the KafkaProducer route is doing: what its next stand-in call does. */
    enum State {
        /** No send in progress (none yet, or the last one ended: its timeout thrown, its hold over). */
        IDLE(false),
        /** The interceptor saw the send: fetch() shows its topic; nothing held. */
        SENT(false),
        /**
         * The interceptor saw a send whose topic kmeta did not have: its first fetch() looks again, since the topic
         * may have arrived meanwhile (then it is held as one that arrived during the wait is).
         */
        FIRST_LOOK(true),
        /** The send's leaders never accepted a connection: this producer's next fetch() hides its topic. */
        HOLD_ARMED(true),
        /** fetch() hid the topic: the add(topic) KafkaProducer makes next holds the send. */
        TOPIC_HIDDEN(true),
        /** add(topic) holds the send until a leader is reachable or max.block.ms from the send. */
        HOLDING(false),
        /** requestUpdateForTopic named the topic: awaitUpdate waits for it (or lets the producer look first). */
        AWAITING_TOPIC(false),
        /**
         * requestUpdateForTopic named the topic again after the producer looked at a version: an awaitUpdate at that
         * version again means the record's partition is beyond the count, and waits for the count to grow.
         */
        AWAITING_PARTITION(false),
        /** add(topics) found one missing (4.4, sendOffsetsToTransaction): awaitUpdate is kmeta's version wait. */
        VERSION_WAIT(false),
        /**
         * add(topics) found known topics this producer never saw confirmed by an answer since it first asked for them
         * ({@link ConfirmedTopics}): awaitUpdate waits until one describes them (or removes them).
         */
        CONFIRMING(false),
        /** awaitUpdate returned: KafkaProducer looks at the view (fetch, maybeThrowExceptionForTopic). */
        LOOKING(false),
        /** kmeta's timeout waits for this producer's next fetch() or maybeThrowExceptionForTopic. */
        TIMEOUT_KEPT(true);

        /** Whether the state acts on a later call (counted per producer, so others skip the thread-local). */
        final boolean counted;

        State(boolean counted) {
            this.counted = counted;
        }
    }

    /** What the protocol asks of kmeta (the bridge's handle): the waits. */
    public interface Waits {
        /** The topic's partition count in the current snapshot; -1 when the snapshot does not have it. */
        int partitionCount(String topic);

        /** Issue 27: the TOPIC_RECREATED failure for a partition the re-created topic lacks, else null. */
        TimeoutException beyondCount(String topic, int partition);

        /** kmeta's targeted wait for the topic ({@code partition}: ANY, or the partition that must exist). */
        void awaitTopic(String topic, int partition, Deadline deadline);

        /** kmeta's version wait. */
        void awaitVersion(int version, long timeoutMs);

        /** Until an answer described each of {@code topics} since this producer asked ({@link ConfirmedTopics}). */
        void awaitConfirmed(java.util.List<String> topics, long timeoutMs);
    }

    /** What the protocol asks of the leader hold ({@link LeaderHold}): a verdict and the hold itself. */
    interface Leaders {
        /** True on the producer's network thread (its sends are never held). */
        boolean isNetworkThread();

        /** The verdict for a record to {@code partition} ({@link MetadataClient#ANY_PARTITION}: any). */
        LeaderHold.Verdict verdict(String topic, int partition);

        /** The same, on snapshot {@code c} whose entry for the record's topic is {@code entry} (null: absent). */
        default LeaderHold.Verdict verdict(Cluster c, TopicMetadata entry, int partition) {
            return entry == null ? LeaderHold.Verdict.UNKNOWN_TOPIC : verdict(entry.name(), partition);
        }

        /**
         * Holds the calling thread until a leader is reachable or {@code max.block.ms} from {@code sinceNs}.
         *
         * @return kmeta's diagnosed timeout; null to let the send through
         * @throws InterruptedException if interrupted while held (status cleared)
         */
        TimeoutException hold(String topic, int partition, boolean settle, long sinceNs) throws InterruptedException;
    }

    /**
     * A producer's mark in a thread's state: who a counted state belongs to; pins nothing (a weak reference to the
     * protocol, whose {@link #counted} it moves). The count is a field of the protocol itself, which every stand-in
     * call reads anyway: a send reads it on every fetch() and add(), and one object less is one cache line less to miss
     * when the caches went cold between sends (issue 38).
     */
    private static final class Mark extends WeakReference<SendProtocol> {
        Mark(SendProtocol protocol) {
            super(protocol);
        }

        void enter() {
            SendProtocol p = get();
            if (p != null) {
                COUNTED.incrementAndGet(p);
            }
        }

        void leave() {
            SendProtocol p = get();
            if (p != null) {
                COUNTED.decrementAndGet(p);
            }
        }
    }

    /**
     * One thread's send. Confined to its thread but for {@link #threadId} (read by any thread that meets it in
     * {@link #SLOTS}); refers to marks, strings, exceptions and its thread weakly only.
     */
    private static final class Send {
        /** The thread's id: final, so a thread that reads this Send from a racy slot reads it right. */
        final long threadId;
        private final WeakReference<Thread> thread;
        State state = State.IDLE;
        /** The producer a counted state belongs to. */
        Mark owner;
        /** The topic this thread's fetch() shows: the last one onSend or requestUpdateForTopic named. */
        String viewTopic;
        /**
         * The record the interceptor saw last: producer, topic, partition (or ANY), when (a hold's max.block.ms;
         * {@link #UNSTAMPED} for a SENT send until a wait arms it, then its requestUpdateForTopic's time).
         */
        Mark sendMark;
        String sendTopic;
        int sendPartition = MetadataClient.ANY_PARTITION;
        long sendStartNs;
        /** HOLD_ARMED / TOPIC_HIDDEN: the hold also waits while kmeta has not tried the leaders (the topic arrived). */
        boolean settle;
        /** The send was held once already: its budget is spent on the hold's verdict, it is not armed again. */
        boolean wasHeld;
        /** The producer and topic of the last requestUpdateForTopic (topic null: add(topics)'s version wait). */
        Mark requestMark;
        String requestTopic;
        /** When requestUpdateForTopic was called: the budget awaitUpdate gets was computed just before. */
        long requestedAtNs;
        /** The version the producer last looked at for {@link #requestTopic}, or {@link #NONE}. */
        int awaitedVersion = NONE;
        /** TIMEOUT_KEPT: kmeta's timeout, for {@link #requestTopic}. */
        TimeoutException error;
        /** CONFIRMING: the topics the next awaitUpdate waits to see described. */
        java.util.List<String> confirming;

        Send() {
            Thread t = Thread.currentThread();
            threadId = t.getId();
            thread = new WeakReference<>(t);
        }

        boolean threadAlive() {
            Thread t = thread.get();
            return t != null && t.isAlive();
        }
    }

    private static final int NONE = Integer.MIN_VALUE;
    /** {@code sendStartNs} of a send that took no clock reading (SENT at onSend). */
    private static final long UNSTAMPED = Long.MIN_VALUE;
    /**
     * Each thread's Send, by thread id: a send finds its own here - the thread, the slot, the Send: three objects
     * where a {@link ThreadLocal} reads five (its map, table and entry between), each a miss when the caches went
     * cold between sends (issue 38). A slot is a hint, not the Send's home: it holds the Send of the first thread to
     * send while it was free or its thread dead, written and read racily (a reader checks the final
     * {@link Send#threadId}); a thread whose slot a live thread holds reads its {@link #OWNED} entry, which every
     * thread's Send has. A slot keeps a dead thread's Send (marks, strings) until another thread claims it. Relies on
     * {@link Thread#getId()}'s contract: unique among live threads.
     */
    private static final Send[] SLOTS = new Send[1024];
    private static final ThreadLocal<Send> OWNED = ThreadLocal.withInitial(SendProtocol::claimSlot);
    private static final AtomicIntegerFieldUpdater<SendProtocol> COUNTED =
            AtomicIntegerFieldUpdater.newUpdater(SendProtocol.class, "counted");

    private final Mark mark = new Mark(this);
    /** How many threads are in a counted state of this producer ({@link Mark}). */
    private volatile int counted;
    private final Waits waits;
    private final Leaders leaders;
    private final long giveUpEarlyMs;
    /** The kmeta instance's clock: a send's start, the time since requestUpdateForTopic, the waits' deadlines. */
    private final Ticker ticker;

    public SendProtocol(Waits waits, Leaders leaders, long giveUpEarlyMs, Ticker ticker) {
        this.waits = waits;
        this.leaders = leaders;
        this.giveUpEarlyMs = giveUpEarlyMs;
        this.ticker = ticker;
    }

    /** The calling thread's Send: its slot's when the slot is its own, else its {@link #OWNED} entry. */
    private static Send send() {
        long id = Thread.currentThread().getId();
        Send s = SLOTS[slotOf(id)];
        return s != null && s.threadId == id ? s : OWNED.get();
    }

    /** A thread's first Send: it takes the thread's slot when that is free or its thread dead. */
    private static Send claimSlot() {
        Send s = new Send();
        int i = slotOf(s.threadId);
        Send held = SLOTS[i];
        if (held == null || !held.threadAlive()) {
            SLOTS[i] = s;
        }
        return s;
    }

    /** True when the calling thread's Send is the one in its slot (tests: who holds a shared slot). */
    static boolean inSlot() {
        return SLOTS[slotOf(Thread.currentThread().getId())] == OWNED.get();
    }

    /** The slot a thread id maps to. */
    static int slotOf(long threadId) {
        return (int) threadId & (SLOTS.length - 1);
    }

    /** The calling thread's state (whichever producer it belongs to). */
    static State state() {
        return send().state;
    }

    /**
     * The interceptor saw a record about to be sent (KafkaProducer's waitOnMetadata comes next): SENT, or
     * HOLD_ARMED when {@code holdable} (the producer is open, and no send saw the topic's leaders proven on this
     * snapshot: {@link dev.kmeta.producer.internal.view.TopicLook#isProven}) and its leaders are unreachable, or not
     * tried yet (with settling). Allocation-free.
     */
    public void onSend(String topic, int partition, boolean holdable) {
        onSend(topic, partition, holdable, null, null);
    }

    /**
     * {@link #onSend(String, int, boolean)} with the topic's entry in kmeta's snapshot {@code snapshot} already looked
     * up by the caller ({@code snapshot} null: look it up).
     */
    public void onSend(String topic, int partition, boolean holdable, Cluster snapshot, TopicMetadata entry) {
        Send s = send();
        s.sendMark = mark;
        s.sendTopic = topic;
        s.viewTopic = topic;
        s.sendPartition = partition;
        s.sendStartNs = UNSTAMPED; // stamped below for a state that may hold; a SENT send's wait stamps it if armed
        s.wasHeld = false;
        LeaderHold.Verdict verdict = !holdable ? LeaderHold.Verdict.SENDABLE
                : snapshot == null ? leaders.verdict(topic, partition) : leaders.verdict(snapshot, entry, partition);
        if (verdict != LeaderHold.Verdict.SENDABLE && leaders.isNetworkThread()) {
            verdict = LeaderHold.Verdict.SENDABLE; // a callback's send on the network thread is never held
        }
        if (verdict == LeaderHold.Verdict.SENDABLE) {
            leave(s);
            s.state = State.SENT; // enter(s, SENT) without reading the constant's fields: SENT is not counted
            return; // no clock read: a send's start matters only to a hold, and a SENT send is held only after its wait
        }
        s.sendStartNs = ticker.nanoTime();
        if (verdict == LeaderHold.Verdict.UNKNOWN_TOPIC) {
            enter(s, State.FIRST_LOOK);
        } else {
            // UNSETTLED: the topic is known already (kmeta's first answer carried it before this send looked), but
            // its leaders are not tried yet - settle as a send whose topic arrived does, or it slips past the hold
            s.settle = verdict == LeaderHold.Verdict.UNSETTLED;
            enter(s, State.HOLD_ARMED);
        }
    }

    /**
     * fetch() on a thread of this producer: throws the kept timeout (TIMEOUT_KEPT -&gt; IDLE); true when this fetch is
     * to show the send's topic absent (HOLD_ARMED -&gt; TOPIC_HIDDEN). No thread-local lookup while no thread has a
     * counted state of this producer.
     */
    public boolean fetchHidesTopic() {
        if (counted == 0) {
            return false;
        }
        Send s = send();
        if (s.owner != mark) {
            return false;
        }
        if (s.state == State.TIMEOUT_KEPT) {
            throw release(s);
        }
        if (s.state == State.HOLD_ARMED) {
            enter(s, State.TOPIC_HIDDEN);
            return true;
        }
        return false;
    }

    /**
     * fetch() on a thread of this producer, once it read the view it would show: in FIRST_LOOK, true when the send's
     * topic arrived since onSend with leaders not proven (to TOPIC_HIDDEN, with settling: the view is to show the
     * topic absent), else false (to SENT). The topic may come with kmeta's answer to another send's request, and
     * KafkaProducer would then send at once, with no wait to hold in. Called after the view was read, so that the
     * verdict is as new as the view: a topic the view shows is one the verdict sees. No thread-local lookup while no
     * thread has a counted state of this producer.
     */
    public boolean hidesArrivedTopic() {
        if (counted == 0) {
            return false;
        }
        Send s = send();
        if (s.owner != mark || s.state != State.FIRST_LOOK) {
            return false;
        }
        if (leaders.verdict(s.sendTopic, s.sendPartition).isSendable()) {
            enter(s, State.SENT);
            return false;
        }
        s.settle = true;
        enter(s, State.TOPIC_HIDDEN);
        return true;
    }

    /**
     * KafkaProducer's send failed before its metadata wait was over (its interceptors' onSendError, on the sending
     * thread): a state waiting for that send's next call (FIRST_LOOK, HOLD_ARMED, TOPIC_HIDDEN) ends, so that a
     * later fetch() on this thread - a partitionsFor - does not act for it. A kept timeout stays for the interceptor.
     */
    public void sendFailed() {
        if (counted == 0) {
            return;
        }
        Send s = send();
        if (s.owner == mark && (s.state == State.FIRST_LOOK || s.state == State.HOLD_ARMED
                || s.state == State.TOPIC_HIDDEN)) {
            enter(s, State.IDLE);
        }
    }

    /** The topic the calling thread's fetch() shows (null before any send). */
    public String viewTopic() {
        return send().viewTopic;
    }

    /**
     * add(topic): in TOPIC_HIDDEN for {@code topic}, holds the send (HOLDING) until a leader is reachable (SENT) or
     * max.block.ms from the send (IDLE, kmeta's timeout thrown).
     *
     * @throws TimeoutException   kmeta's diagnosed timeout (ADVERTISED_LISTENER_UNREACHABLE)
     * @throws InterruptException if the thread is interrupted while held (its interrupt status set)
     */
    public void add(String topic) {
        if (counted == 0) {
            return;
        }
        Send s = send();
        if (s.owner != mark || s.state != State.TOPIC_HIDDEN || !topic.equals(s.sendTopic)) {
            return;
        }
        enter(s, State.HOLDING);
        s.wasHeld = true;
        s.awaitedVersion = NONE; // the producer's next awaitUpdate lets it look at the real view at once
        TimeoutException e;
        try {
            e = leaders.hold(topic, s.sendPartition, s.settle, s.sendStartNs);
        } catch (InterruptedException interrupted) {
            s.state = State.IDLE;
            throw new InterruptException(interrupted);
        }
        if (e != null) {
            s.state = State.IDLE;
            throw e;
        }
        s.state = State.SENT;
    }

    /** add(topics) found a topic missing: the following awaitUpdate is a version wait (VERSION_WAIT). */
    public void versionWait() {
        Send s = send();
        enter(s, State.VERSION_WAIT);
        s.requestMark = mark;
        s.requestTopic = null;
    }

    /**
     * add(topics) found known topics this producer has not seen confirmed (kmeta was asked to refresh them): the
     * following awaitUpdate waits for them (CONFIRMING).
     */
    public void confirmWait(java.util.List<String> topics) {
        Send s = send();
        enter(s, State.CONFIRMING);
        s.requestMark = mark;
        s.requestTopic = null;
        s.confirming = topics;
    }

    /** requestUpdateForTopic(topic): AWAITING_TOPIC, or AWAITING_PARTITION for the same topic once looked at. */
    public void requestUpdateForTopic(String topic) {
        Send s = send();
        s.viewTopic = topic;
        if (s.requestMark != mark || !topic.equals(s.requestTopic)) {
            s.requestMark = mark;
            s.requestTopic = topic;
            s.awaitedVersion = NONE;
        }
        s.requestedAtNs = ticker.nanoTime();
        enter(s, s.awaitedVersion == NONE ? State.AWAITING_TOPIC : State.AWAITING_PARTITION);
    }

    /**
     * awaitUpdate(version, timeoutMs): see the class doc. Returns normally when the topic (or partition) arrived, or
     * when kmeta timed out (TIMEOUT_KEPT).
     *
     * @throws InterruptedException if the thread is interrupted (KafkaProducer throws InterruptException)
     */
    public void awaitUpdate(int version, long timeoutMs) throws InterruptedException {
        Send s = send();
        try {
            if (s.requestMark == mark && s.state == State.CONFIRMING) {
                java.util.List<String> topics = s.confirming;
                s.confirming = null;
                enter(s, State.LOOKING);
                waits.awaitConfirmed(topics, Math.max(0, timeoutMs));
                return;
            }
            if (s.requestMark != mark || s.requestTopic == null) {
                waits.awaitVersion(version, Math.max(0, timeoutMs));
                return;
            }
            String topic = s.requestTopic;
            long sinceRequestMs = (ticker.nanoTime() - s.requestedAtNs) / 1_000_000;
            Deadline deadline = Deadline.after(Duration.ofMillis(Math.max(0, timeoutMs - giveUpEarlyMs - sinceRequestMs)), ticker);
            int count = waits.partitionCount(topic);
            boolean ownSend = s.sendMark == mark && topic.equals(s.sendTopic);
            // Issue 27: a partition the re-created topic lacks fails at once, with the re-creation as its diagnosis.
            TimeoutException recreated = count < 0 || !ownSend || s.sendPartition < count
                    ? null : waits.beyondCount(topic, s.sendPartition);
            if (recreated != null) {
                keep(s, recreated);
                return;
            }
            if (count <= 0) {
                s.awaitedVersion = version;
                waits.awaitTopic(topic, MetadataClient.ANY_PARTITION, deadline);
                if (ownSend && armIfUnproven(s, topic)) {
                    return;
                }
            } else if (s.awaitedVersion != version) {
                s.awaitedVersion = version; // the producer has not looked at this version yet: let it
                // the topic arrived between the fetch that missed it and this wait (fresh-clone CI: a first send to a
                // closed port went through, and expired at delivery.timeout.ms instead of failing at max.block.ms)
                if (ownSend && armIfUnproven(s, topic)) {
                    return;
                }
            } else {
                waits.awaitTopic(topic, Math.max(count, ownSend ? s.sendPartition : -1), deadline);
            }
            enter(s, State.LOOKING);
        } catch (TimeoutException e) {
            if (s.requestMark == mark && s.requestTopic != null) {
                keep(s, e); // thrown by the fetch() KafkaProducer makes next, before it reads its own clock
            } else {
                throw e;
            }
        } catch (InterruptException e) {
            enter(s, State.IDLE);
            Thread.interrupted(); // InterruptedException's contract; KafkaProducer's InterruptException sets it again
            InterruptedException interrupted = new InterruptedException(e.getMessage());
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    /**
     * A send whose topic arrived during its metadata wait: HOLD_ARMED with settling when the record's leaders are
     * not proven (kmeta needs a moment to try them), so that the producer's next fetch() hides the topic and its
     * add(topic) holds the send. Never on the network thread, never a send held once already (the hold let it
     * through: a second would only spend the rest of its budget).
     */
    private boolean armIfUnproven(Send s, String topic) {
        if (s.wasHeld || leaders.isNetworkThread() || leaders.verdict(topic, s.sendPartition).isSendable()) {
            return false;
        }
        s.settle = true; // the topic arrived: give kmeta the moment it needs to try its leaders
        if (s.sendStartNs == UNSTAMPED) {
            s.sendStartNs = s.requestedAtNs; // a SENT send: its wait began right after its first look
        }
        enter(s, State.HOLD_ARMED);
        return true;
    }

    /** maybeThrowExceptionForTopic, the interceptor: the kept timeout for {@code topic} (to IDLE), or null. */
    public TimeoutException takeTimeout(String topic) {
        Send s = send();
        return isKept(s, topic) ? release(s) : null;
    }

    /** getError(topic): the kept timeout for {@code topic}, left kept; or null. */
    public TimeoutException peekTimeout(String topic) {
        Send s = send();
        return isKept(s, topic) ? s.error : null;
    }

    private boolean isKept(Send s, String topic) {
        return s.state == State.TIMEOUT_KEPT && s.owner == mark && topic.equals(s.requestTopic);
    }

    private void keep(Send s, TimeoutException e) {
        enter(s, State.TIMEOUT_KEPT);
        s.error = e;
    }

    private TimeoutException release(Send s) {
        TimeoutException e = s.error;
        enter(s, State.IDLE);
        return e;
    }

    /** Moves {@code s} to {@code to} for this producer: leaves its counted state (of whichever producer) first. */
    private void enter(Send s, State to) {
        leave(s);
        s.state = to;
        if (to.counted) {
            s.owner = mark;
            mark.enter();
        }
    }

    private static void leave(Send s) {
        if (s.owner != null) { // set exactly while the state is counted (no enum constant read per send)
            s.owner.leave();
            s.owner = null;
        }
        s.error = null;
    }
}
