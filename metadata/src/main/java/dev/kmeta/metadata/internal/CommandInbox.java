package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The manager's command inbox: what application threads ask of the sender (a full update, a topic to fetch, a leader
 * hint), posted without a lock, folded so that any number of askers make one command, and taken by the sender at each
 * poll into the {@link RefreshStateMachine}.
 *
 * <p>Concurrency: the posting methods ({@link #requestFull}, {@link #requestTopic}, {@link #postLeaderHint},
 * {@link #wakeSender}) are for any thread: a jctools MPSC queue, a per-topic CAS flag and two {@link AtomicBoolean}s.
 * {@link #drain} and {@link #senderLooked} are for the sender thread only; {@link #drain} publishes the leader hints'
 * snapshot through the sender's {@link ManagerState.Publisher}.
 */
final class CommandInbox {
    private final ManagerState.Publisher publisher;
    private final RefreshStateMachine machine;
    private final MessagePassingQueue<Object> commands = new MpscUnboundedXaddArrayQueue<>(256);
    private final AtomicBoolean fullRequested = new AtomicBoolean();
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private volatile Waker waker = () -> { };

    CommandInbox(ManagerState.Publisher publisher, RefreshStateMachine machine) {
        this.publisher = publisher;
        this.machine = machine;
    }

    /** Sets how application threads wake the sender. Call before the sender starts. */
    void setWaker(Waker waker) {
        this.waker = Objects.requireNonNull(waker, "waker");
    }

    // ---------------------------------------------------------------- any thread

    /** Asks for a full update: one command however many threads ask before the sender looks. */
    void requestFull() {
        if (fullRequested.compareAndSet(false, true)) {
            wakeSender();
        } else {
            publisher.counters().requestsCoalesced.increment();
        }
    }

    /** Asks for one topic: one command per topic until the sender took it. */
    void requestTopic(TopicEntry e) {
        if (e.refreshRequested.compareAndSet(false, true)) {
            commands.offer(e);
            wakeSender();
        } else {
            publisher.counters().requestsCoalesced.increment();
        }
    }

    /**
     * Asks for several topics in one command, so that one request asks for them all (a prefetch): posted whole,
     * whatever their per-topic flags say, and taken in one drain.
     */
    void requestTopics(List<TopicEntry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        commands.offer(new TopicBatch(List.copyOf(entries)));
        wakeSender();
    }

    /** Several topics asked at once ({@link #requestTopics}). */
    private record TopicBatch(List<TopicEntry> entries) { }

    /** Posts a leader hint (KIP-951) for the sender to apply. */
    void postLeaderHint(String topic, int partition, int leaderId, int leaderEpoch, Node endpoint) {
        commands.offer(new LeaderHint(topic, partition, leaderId, leaderEpoch, endpoint));
        wakeSender();
    }

    /** Wakes the sender, at most once until it has looked ({@link #senderLooked}). */
    void wakeSender() {
        if (wakePending.compareAndSet(false, true)) {
            waker.wakeup();
        }
    }

    // ---------------------------------------------------------------- sender thread

    /** Sender: it is looking now; the next post wakes it again. */
    void senderLooked() {
        wakePending.set(false);
    }

    /** Sender: takes every posted command into the state machine; applies the leader hints as one batch. */
    void drain() {
        if (fullRequested.getAndSet(false)) {
            machine.requestFull("requestUpdate()");
        }
        List<LeaderHint> hints = null;
        Object command;
        while ((command = commands.relaxedPoll()) != null) {
            if (command instanceof TopicEntry) {
                takeTopicRequest((TopicEntry) command);
            } else if (command instanceof TopicBatch) {
                ((TopicBatch) command).entries().forEach(this::takeTopicRequest);
            } else if (command instanceof LeaderHint) {
                if (hints == null) {
                    hints = new ArrayList<>();
                }
                hints.add((LeaderHint) command);
            }
        }
        if (hints != null) {
            applyHints(hints);
        }
    }

    private void takeTopicRequest(TopicEntry e) {
        e.refreshRequested.set(false);
        if (e.removed) {
            return;
        }
        if (publisher.snapshot().topic(e.name) != null) {
            machine.addRefresh(e.name, false);
        } else {
            machine.addNew(e.name, !e.asked);
        }
    }

    /** Applies the usable hints in one new snapshot and wakes their topics' waiters; an unusable one asks a refresh. */
    private void applyHints(List<LeaderHint> hints) {
        Cluster before = publisher.snapshot();
        LeaderHints batch = new LeaderHints(before);
        for (LeaderHint h : hints) {
            if (batch.apply(h)) {
                publisher.counters().leaderHintsApplied.incrementAndGet();
                JfrEvents.recordLeaderHint(publisher.clientId(), h);
            } else {
                publisher.counters().leaderHintsIgnored.incrementAndGet();
                TopicEntry e = publisher.subscriptions().get(h.topic);
                if (e != null && batch.wantsRefresh(h)) {
                    machine.addRefresh(h.topic, false);
                }
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        publisher.publish(before.apply(batch.delta()));
        publisher.wakeWaiters(batch.topics());
    }
}
