package dev.kmeta.metadata;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;

import java.time.Duration;

/**
 * A producer's view of a Kafka cluster, kept fresh by one sender thread: what the {@code send()} path asks "where
 * does this record go?", and waits on, within one budget, when the answer is not known yet.
 *
 * <h2>Concurrency</h2>
 * Every method may be called from any number of application threads. None of them takes a lock that the sender
 * holds while it applies a response: {@link #fetch()} is one volatile read; requests for updates, new topics,
 * leader hints and invalidations are posted to the sender through a lock-free queue; waiters park and are woken
 * only when what they wait for changed (their topic, or the version), on a fatal error, or on close.
 *
 * <h2>Failures: what implementations throw</h2>
 * The {@code @throws} clauses name kmeta's exceptions ({@link MetadataException}'s subclasses): kmeta's network-free
 * manager throws them. {@code dev.kmeta.sender.KafkaMetadata}, the implementation on the Kafka protocol, throws for
 * the same failure the Kafka exception a producer's code already catches, with kmeta's exception as its cause (so
 * {@link Diagnosis#from(Throwable)} still finds the diagnosis):
 * <ul>
 * <li>{@link MetadataTimeoutException}: {@code KafkaMetadataTimeoutException} (a Kafka {@code TimeoutException})</li>
 * <li>{@link MetadataInterruptedException}: {@code InterruptException}</li>
 * <li>{@link TopicException}: {@code TopicAuthorizationException} (not authorized), else
 * {@code InvalidTopicException}</li>
 * <li>{@link MetadataFatalException}: the wire's own type ({@code SaslAuthenticationException},
 * {@code SslAuthenticationException}, {@code AuthenticationException}, {@code UnsupportedVersionException}),
 * else {@code KafkaException}</li>
 * <li>{@link MetadataClosedException}: {@code KafkaException}</li>
 * <li>{@link TooManyTopicsException}: {@code KafkaException}</li>
 * </ul>
 * Both are {@code RuntimeException}s. The sender module's {@code MetadataClientFailuresTest} checks this list
 * against what {@code KafkaMetadata} throws.
 */
public interface MetadataClient extends AutoCloseable {
    /** Waits for a topic's metadata without caring about a particular partition. */
    int ANY_PARTITION = -1;

    /** The current snapshot. One volatile read; never blocks, never null. */
    Cluster fetch();

    /**
     * Asks for a refresh of every subscribed topic, and returns the version to wait past with
     * {@link #awaitUpdate(int, Deadline)}. Many callers at once make one request.
     */
    int requestUpdate();

    /**
     * Waits until the snapshot's version is greater than {@code lastVersion}.
     *
     * @param lastVersion the version returned by {@link #requestUpdate()} (or read from a snapshot)
     * @param deadline    how long to wait at most ({@link #newDeadline}, or a send's {@link Deadline}); an expired
     *                    one checks once and never blocks
     * @throws MetadataTimeoutException     if the version did not move in time
     * @throws MetadataFatalException       on an error no retry will fix (authentication, unsupported version)
     * @throws MetadataClosedException      if the client is or gets closed
     * @throws MetadataInterruptedException if the thread is or gets interrupted while it waits (status kept)
     */
    void awaitUpdate(int lastVersion, Deadline deadline);

    /**
     * The send path's wait: subscribes {@code topic} (idempotently), returns at once when the snapshot already
     * knows it, and otherwise waits for that topic only - until it is known, the brokers refuse it, the deadline
     * passes or the client closes.
     *
     * @param topic     the topic
     * @param partition {@link #ANY_PARTITION} to wait for the topic to have partitions; otherwise wait until that
     *                  partition exists and has a leader
     * @param deadline  the send's one budget; this wait draws on it
     * @return the snapshot that answers the question
     * @throws MetadataTimeoutException if the deadline passed first (the message says what was seen)
     * @throws TopicException           if the brokers refuse the topic (not authorized, invalid name)
     * @throws TooManyTopicsException   if subscribing the topic would pass {@code kmeta.metadata.max.topics}
     * @throws MetadataFatalException   on an error no retry will fix
     * @throws MetadataClosedException  if the client is or gets closed
     * @throws MetadataInterruptedException if the thread is or gets interrupted while it waits (status kept)
     */
    Cluster awaitTopic(String topic, int partition, Deadline deadline);

    /** {@link #awaitTopic(String, int, Deadline)} for any partition. */
    default Cluster awaitTopic(String topic, Deadline deadline) {
        return awaitTopic(topic, ANY_PARTITION, deadline);
    }

    /**
     * The send path in one lookup: {@link #awaitTopic(String, int, Deadline)} for one partition, returning where the
     * record goes. A cache hit is one snapshot read and one topic lookup, allocation-free.
     *
     * @param partition the partition, {@code >= 0}
     * @return the partition's leader (null only if the brokers named a leader missing from their broker list)
     * @throws IllegalArgumentException if {@code partition < 0}
     * @throws MetadataTimeoutException and the others of {@link #awaitTopic(String, int, Deadline)}
     */
    Node awaitLeader(String topic, int partition, Deadline deadline);

    /**
     * The instance's clock: what its waits read and park on (the system's unless the instance was built with
     * another, e.g. a test's fake).
     */
    Ticker ticker();

    /**
     * A deadline {@code budget} from now on the instance's clock ({@link #ticker()}): the way to make the
     * {@link Deadline} a wait takes (or {@link Deadline#after(Duration, Ticker)} with a ticker the caller holds).
     *
     * @throws IllegalArgumentException if the budget is negative
     */
    default Deadline newDeadline(Duration budget) {
        return Deadline.after(budget, ticker());
    }

    /**
     * A leader hint from a produce response (KIP-951: {@code NOT_LEADER_OR_FOLLOWER} / {@code FENCED_LEADER_EPOCH}
     * with the current leader): applied when its epoch is newer than the cached one, which publishes a new version and
     * wakes that topic's waiters. A hint without a usable leader asks for a refresh of the topic instead.
     *
     * @param endpoint the new leader's endpoint when the response carried it, else null
     */
    void onLeaderHint(String topic, int partition, int leaderId, int leaderEpoch, Node endpoint);

    /** Marks a partition's leader as doubtful (a produce error, a disconnect): the topic is refreshed soon. */
    void invalidate(String topic, int partition);

    /** The refresh state machine's state right now. */
    RefreshState state();

    /**
     * Closes the client: no more requests; every waiter is released at once with {@link MetadataClosedException}.
     * Idempotent.
     */
    @Override
    void close();
}
