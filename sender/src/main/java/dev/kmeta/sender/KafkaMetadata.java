package dev.kmeta.sender;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataException;
import dev.kmeta.metadata.PrefetchResult;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.sender.internal.Handles;
import dev.kmeta.sender.internal.MetadataDriver;
import dev.kmeta.sender.internal.SenderCore;

import javax.management.ObjectName;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * kmeta's entry point: a producer's metadata for one Kafka cluster, kept fresh by one sender thread
 * ({@code kmeta-metadata-sender | <client.id>}) on the real Kafka protocol.
 *
 * <pre>{@code
 * Properties props = ...;                                    // your producer config
 * try (KafkaMetadata metadata = KafkaMetadata.create(props)) {
 *     Deadline send = metadata.newSendDeadline();            // max.block.ms, once per send, on the instance's clock
 *     Node leader = metadata.awaitLeader("orders", 3, send); // a cache hit returns at once; a miss waits, diagnosed
 * }
 * }</pre>
 *
 * <p>{@link #create} makes a private instance; {@link #shared} hands out reference-counted handles to one instance
 * per cluster and security identity in this JVM, so that N producers make one stream of metadata requests, not N.
 * {@link #driven} makes a {@link DrivenKafkaMetadata}: a {@code KafkaMetadata} without a thread of its own, which
 * alone has the methods a producer's kafka-clients {@code NetworkClient} needs. Every signature here names only
 * kmeta's types and Kafka's public ones (Kafka's exceptions).
 *
 * <p>Thread-safe: every method may be called from any thread (see {@link MetadataClient} for the concurrency
 * contract). {@link #close()} is idempotent; closing a shared handle closes the instance when the last handle goes.
 */
public sealed class KafkaMetadata implements MetadataClient permits DrivenKafkaMetadata {
    final SenderCore core;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final HandleCalls calls;
    /** The leaderless partitions this handle has seen, and since when (issue 39). */
    private final dev.kmeta.sender.internal.LeaderlessSince leaderlessSince =
            new dev.kmeta.sender.internal.LeaderlessSince();

    static {
        Handles.install(handle -> handle.core); // kmeta's own modules' calls on a handle, off the public API
    }

    KafkaMetadata(SenderCore core) {
        this(core, core.config().clientId());
    }

    /** A handle on {@code core} for the user whose client.id is {@code user} (a shared instance names its users). */
    KafkaMetadata(SenderCore core, String user) {
        this.core = core;
        this.calls = new HandleCalls(core, closed, user);
    }

    /**
     * A private instance for the given producer properties (Kafka's own keys: {@code bootstrap.servers},
     * {@code client.id}, {@code metadata.max.age.ms}, security settings...; see docs/configuration.md).
     *
     * @throws dev.kmeta.metadata.ConfigException if a value is bad (the message names the key)
     */
    public static KafkaMetadata create(Map<String, ?> props) {
        return builder(props).build();
    }

    /** {@link #create(Map)} from {@link Properties}. */
    public static KafkaMetadata create(Properties props) {
        return create(MetadataConfig.from(props).originals());
    }

    /**
     * A builder for a private instance with options beyond properties (a DNS hook, a clock), with a sender thread of
     * its own ({@link Builder#build()}) or driven by a producer's network client ({@link Builder#buildDriven()}).
     */
    public static Builder builder(Map<String, ?> props) {
        return new Builder(props);
    }

    /**
     * An instance without a thread of its own, for a producer that runs its own kafka-clients {@code NetworkClient}:
     * kmeta becomes that client's metadata source ({@link DrivenKafkaMetadata#metadataUpdater()}), sends its metadata
     * requests on it and does its work inside the producer's {@code poll}. The producer closes its client;
     * {@link #close()} releases kmeta's waiters. Same as {@code builder(props).buildDriven()}, which takes a DNS hook
     * and a clock too.
     */
    public static DrivenKafkaMetadata driven(Map<String, ?> props) {
        return builder(props).buildDriven();
    }

    /**
     * A handle to the one instance this JVM keeps for the cluster and security identity named by {@code props}
     * ({@code bootstrap.servers}, {@code security.protocol}, {@code ssl.*}, {@code sasl.*}, {@code client.dns.lookup});
     * made by the first caller, with the first caller's other settings.
     */
    public static KafkaMetadata shared(Map<String, ?> props) {
        MetadataConfig config = MetadataConfig.from(props);
        return new KafkaMetadata(SenderCore.shared(config), config.clientId());
    }

    /**
     * Resolves every name of {@code servers} ({@code host:port}, as in {@code bootstrap.servers}) through {@code hook}
     * once, now: a BOOTSTRAP_DNS diagnosis (what each name answered) when none resolves, else null. For a caller that
     * must fail at once where Kafka's client fails its construction ({@code bootstrap.resolve.timeout.ms} unset or 0):
     * the KafkaProducer route. Starts nothing; thread-safe.
     */
    public static Diagnosis unresolvableBootstrap(java.util.List<String> servers, HostResolverHook hook) {
        Objects.requireNonNull(hook, "hook");
        java.util.List<String> lines = new java.util.ArrayList<>();
        for (String s : servers) {
            String host = hostOf(s);
            if (host == null) {
                continue; // not host:port: Kafka's own validation names it
            }
            try {
                if (hook.resolve(host).length > 0) {
                    return null;
                }
                lines.add(host + ": no address");
            } catch (java.net.UnknownHostException e) {
                lines.add(host + ": cannot resolve host name (" + e.getMessage() + ")");
            }
        }
        if (lines.isEmpty()) {
            return null;
        }
        return dev.kmeta.metadata.internal.Failures.make().diagnosis(Diagnosis.Cause.BOOTSTRAP_DNS, null, -1, 0,
                "no name of bootstrap.servers=" + servers + " resolves (" + String.join("; ", lines) + ")",
                "check the host names in bootstrap.servers and this host's DNS", lines, -1, null, null);
    }

    /** The host of a {@code bootstrap.servers} entry ({@code host:port}, {@code [v6]:port}, a protocol prefix). */
    private static String hostOf(String server) {
        String s = server.trim();
        int scheme = s.indexOf("://");
        if (scheme >= 0) {
            s = s.substring(scheme + 3);
        }
        if (s.startsWith("[")) {
            int end = s.indexOf(']');
            return end > 1 ? s.substring(1, end) : null;
        }
        int colon = s.lastIndexOf(':');
        return colon > 0 ? s.substring(0, colon) : null;
    }

    @Override
    public Cluster fetch() {
        return core.manager().fetch();
    }

    /**
     * {@inheritDoc}
     *
     * @throws org.apache.kafka.common.KafkaException if this handle is closed
     */
    @Override
    public int requestUpdate() {
        return calls.requestUpdate();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Throws Kafka's exception types (see {@link #awaitTopic(String, int, Deadline)}).
     *
     * @throws KafkaMetadataTimeoutException (a Kafka {@code TimeoutException}) if the version did not move in time
     */
    @Override
    public void awaitUpdate(int lastVersion, Deadline deadline) {
        calls.awaitUpdate(lastVersion, deadline);
    }

    /**
     * {@inheritDoc}
     *
     * <p>At this boundary kmeta's exceptions are the Kafka types a producer's code already catches, each with kmeta's
     * message and kmeta's exception as its cause ({@link dev.kmeta.metadata.Diagnosis#from(Throwable)} finds the
     * diagnosis in any of them).
     *
     * @throws KafkaMetadataTimeoutException (a Kafka {@code TimeoutException}, carrying the {@code Diagnosis}) if the
     *         deadline passed first
     * @throws org.apache.kafka.common.errors.TopicAuthorizationException if the client may not describe the topic
     * @throws org.apache.kafka.common.errors.InvalidTopicException if the name is not a legal topic name
     * @throws org.apache.kafka.common.errors.AuthenticationException (SASL or TLS subtype) if the brokers refused
     *         this client's identity
     * @throws org.apache.kafka.common.errors.InterruptException if the thread is or gets interrupted while it waits
     *         (its interrupt status stays set)
     * @throws org.apache.kafka.common.KafkaException if the handle is closed, subscribing would pass
     *         {@code kmeta.metadata.max.topics}, or another error no retry fixes
     */
    @Override
    public Cluster awaitTopic(String topic, int partition, Deadline deadline) {
        try {
            return open().awaitTopic(topic, partition, deadline);
        } catch (MetadataException e) {
            throw KafkaErrors.toKafka(e);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Throws the Kafka exception types of {@link #awaitTopic(String, int, Deadline)}.
     */
    @Override
    public Node awaitLeader(String topic, int partition, Deadline deadline) {
        try {
            return open().awaitLeader(topic, partition, deadline);
        } catch (MetadataException e) {
            throw KafkaErrors.toKafka(e);
        }
    }

    /**
     * Subscribes {@code topic} without waiting (a send that checks first, a warm-up): true when the snapshot already
     * has its partitions (then allocation-free, as a cache hit); otherwise the topic is asked for and false returned.
     *
     * @throws org.apache.kafka.common.KafkaException if the handle is closed or the topic would pass
     *                                                {@code kmeta.metadata.max.topics}
     */
    public boolean subscribe(String topic) {
        try {
            return open().subscribe(topic);
        } catch (MetadataException e) {
            throw KafkaErrors.toKafka(e);
        }
    }

    /**
     * Warm-up: fetches {@code topics} before the first send needs them - subscribed at once, asked for in one metadata
     * request (not one per topic), waited for together within {@code deadline} - and returns what it got and, for
     * each topic it did not get, the {@link Diagnosis} a send timing out on that topic would carry
     * ({@code TOPIC_NOT_FOUND}, {@code BOOTSTRAP_UNREACHABLE}...). It does not throw for a topic missing: the result
     * says. A send to a prefetched topic is then a cache hit (no metadata wait). Topics already known cost nothing
     * (no request, no wait); a topic the brokers refuse (not authorized) is in the result at once. Prefetched topics
     * stay subscribed like any other, and expire after {@code metadata.max.idle.ms} unused.
     * {@code kmeta.metadata.prefetch.topics} does the same at start-up, without waiting.
     *
     * <pre>{@code
     * PrefetchResult warm = metadata.prefetch(List.of("orders", "payments"), metadata.newSendDeadline());
     * warm.missing().forEach((topic, why) -> log.warn("not ready: {}", why.message()));
     * }</pre>
     *
     * @throws org.apache.kafka.common.errors.InterruptException if the thread is or gets interrupted while it waits
     *         (its interrupt status stays set)
     * @throws org.apache.kafka.common.errors.AuthenticationException (SASL or TLS subtype) if the brokers refused this
     *         client's identity
     * @throws org.apache.kafka.common.KafkaException if the handle is or gets closed (which releases the wait at
     *         once), subscribing would pass {@code kmeta.metadata.max.topics}, or another error no retry fixes
     */
    public PrefetchResult prefetch(Collection<String> topics, Deadline deadline) {
        return calls.prefetch(topics, deadline);
    }

    /**
     * Why a record for this partition cannot go out now, from what the sender recorded; null when the partition has
     * a leader and nothing recorded speaks against that leader. Besides the causes a wait meets (each with its fix in
     * docs/troubleshooting.md; {@code NO_ANSWER_IN_TIME} for a topic not described yet), a producer meets here
     * {@code ADVERTISED_LISTENER_UNREACHABLE} (the leader, at the address the brokers advertise, never accepted a
     * connection while the bootstrap answered: fix {@code advertised.listeners}; no retry fixes it, a leader move
     * does), {@code BROKERS_UNREACHABLE} (connected before, unreachable now) and {@code LEADER_NOT_AVAILABLE}
     * (replicas offline). The sender tries each leader of a subscribed topic that was never connected, or fails now,
     * once per reconnect backoff (in driven mode it also sees the producer's own connections), so right after the
     * first answer the result can be null and turn into ADVERTISED_LISTENER_UNREACHABLE an attempt later.
     *
     * <p>Put a non-null result in an expired record's cause chain (e.g. as a {@link KafkaMetadataTimeoutException})
     * so that {@link Diagnosis#from(Throwable)} finds it. Any thread; allocation-free when the result is null (one
     * snapshot read and the leader's evidence), so it may be called for every record checked.
     *
     * @param partition the partition, >= 0
     */
    public Diagnosis diagnose(String topic, int partition) {
        return core.manager().diagnosePartition(topic, partition);
    }

    /**
     * Why a record for this partition was not delivered in time (its producer gave up on it, e.g. at
     * {@code delivery.timeout.ms}): what {@link #diagnose} says, or, when nothing kmeta recorded speaks against the
     * partition's leader, {@code LEADER_NOT_RESPONDING} naming the leader and kmeta's last contact with it (a slow or
     * stuck broker, or a path only the producer's own connections take). Never null: every expired record can carry
     * a reason. Any thread.
     *
     * @param partition the partition, >= 0
     */
    public Diagnosis diagnoseUndelivered(String topic, int partition) {
        return core.manager().diagnoseUndelivered(topic, partition);
    }

    /**
     * The partitions of the subscribed topics that have no leader now ({@code topic-partition}), each with how many
     * ms this handle has seen it without one (from the first snapshot read here that showed it so: a producer on the
     * KafkaProducer route reads each new snapshot while it has records queued). Sorted by name; empty when every
     * partition has a leader. For stats and health checks (issue 39), not the send path. Any thread.
     */
    public java.util.Map<String, Long> leaderlessPartitions() {
        return leaderlessSince.at(fetch(), ticker().milliTime());
    }

    /**
     * Ms since the last successful full refresh (kafka-clients' {@code metadata-age}, in ms); before the first one,
     * ms since the instance started.
     */
    public long metadataAgeMs() {
        return core.manager().metadataAgeMs();
    }

    /**
     * Ms since an applied answer (full or partial) last described {@code topic}; -1 when the topic is not subscribed
     * or no answer described it yet. The JMX view is {@code KafkaMetadataMXBean.topicAgeSeconds}. Any thread.
     */
    public long topicAgeMs(String topic) {
        return core.manager().topicAgeMs(topic);
    }

    /**
     * The instance's clock ({@link Builder#ticker}; the system's by default): what its waits read and park on, and
     * what code that waits beside it (the KafkaProducer route's holds) reads and parks on too.
     */
    @Override
    public Ticker ticker() {
        return core.manager().ticker();
    }

    /**
     * One send's budget from the configuration's {@code max.block.ms}, starting now on the instance's clock
     * ({@link Builder#ticker}): what a {@code send()} waits within.
     */
    public Deadline newSendDeadline() {
        return newDeadline(Duration.ofMillis(core.config().maxBlockMs()));
    }

    @Override
    public void onLeaderHint(String topic, int partition, int leaderId, int leaderEpoch, Node endpoint) {
        core.manager().onLeaderHint(topic, partition, leaderId, leaderEpoch, endpoint);
    }

    @Override
    public void invalidate(String topic, int partition) {
        core.manager().invalidate(topic, partition);
    }

    @Override
    public RefreshState state() {
        return closed.get() ? RefreshState.CLOSED : core.manager().state();
    }

    /**
     * What the instance has done since it started, read now: requests, answers and latency, waits and timeouts by
     * cause, rejected epochs, leader hints, rebootstraps, the threads waiting now ({@link MetadataStats}). A new
     * immutable snapshot each call; for metrics, not for the send path.
     */
    public MetadataStats stats() {
        MetadataDriver driver = core.driver();
        return MetadataStats.of(core.manager().counters(), core.rebootstraps(), driver.misroutedConnections(),
                driver.bootstrapResolveTimeouts(), core.manager().oldestTopicAgeMs());
    }

    /**
     * The name of this instance's {@link KafkaMetadataMXBean} on the platform MBeanServer:
     * {@code dev.kmeta:type=metadata,client-id=<client.id>} (the client id quoted when it holds characters other
     * than letters, digits, '.', '_' and '-'), with {@code ,instance=<n>} added when another running instance in this
     * JVM already has that name. Registered when the instance starts and unregistered when it stops (for a shared
     * instance: once, when its last handle closes). Null if the MBean could not be registered (logged).
     */
    public ObjectName mbeanName() {
        return core.mbeanName();
    }

    /**
     * Why this instance cannot start, without waiting for a send: with {@code bootstrap.resolve.timeout.ms} set
     * (KIP-909), a {@code BOOTSTRAP_DNS} diagnosis once that long passed with no name of {@code bootstrap.servers}
     * resolving (since the start or the last rebootstrap), until one resolves; null otherwise. kmeta keeps resolving
     * the names meanwhile (Kafka's own client gives up and must be re-created).
     */
    public Diagnosis bootstrapResolutionFailure() {
        return core.driver().bootstrapFailure();
    }

    /** What the sender saw of each broker address (attempts, answers, last error). */
    public ConnectionEvidence evidence() {
        return core.evidence();
    }

    /** The configuration in force (of the first creator, for a shared instance). */
    public MetadataConfig config() {
        return core.config();
    }

    /** The instance's manager, if this handle is open: the send path's one check, on this object's own fields. */
    private MetadataManager open() {
        if (closed.get()) {
            throw calls.closedError();
        }
        return core.manager();
    }

    /**
     * Closes this handle; the instance stops (sender thread ended, sockets closed, every waiter released) when its
     * last handle closes, and drops its snapshot: {@link #fetch()} on a closed instance's handle is empty, so a handle
     * still referenced after close pins nothing of the cluster. Returns within a bounded time.
     */
    @Override
    public void close() {
        calls.close();
    }

    @Override
    public String toString() {
        return "KafkaMetadata(" + core.config().clientId() + ", " + state() + ", " + fetch() + ")";
    }

    /**
     * Builds a private {@link KafkaMetadata}: set options, then {@link #build()} (own sender thread) or
     * {@link #buildDriven()} (driven mode). Not thread-safe: one thread builds; the instance built is thread-safe.
     */
    public static final class Builder {
        private final Map<String, ?> props;
        private HostResolverHook resolver = HostResolverHook.system();
        private Ticker ticker = Ticker.system();

        private Builder(Map<String, ?> props) {
            this.props = Objects.requireNonNull(props, "props");
        }

        /**
         * Resolves broker host names (bootstrap and learned) with {@code hook} instead of the system resolver. In
         * driven mode the hook takes effect through {@link DrivenKafkaMetadata#hostResolver()}, which the producer
         * passes to its {@code NetworkClient}.
         */
        public Builder hostResolver(HostResolverHook hook) {
            this.resolver = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /**
         * Runs the instance on {@code ticker} instead of the system's monotonic clock: its one clock, read by the
         * waits ({@link KafkaMetadata#newSendDeadline()}; a {@link Deadline} made on another ticker keeps its own),
         * the metadata age, and everything the sender times - request timeouts, retry backoffs, the rebootstrap
         * trigger, idle topic expiry, leader probes, the evidence's times. The sender's own kafka-clients
         * {@code NetworkClient} runs on it too; in driven mode the producer's client keeps the producer's clock and
         * kmeta only hands that client's time back to it. For tests on fake time; the ticker must be thread-safe.
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** Starts the instance, with its own sender thread. */
        public KafkaMetadata build() {
            return new KafkaMetadata(SenderCore.start(MetadataConfig.from(props), resolver, null, ticker));
        }

        /**
         * An instance without a thread of its own, as {@link KafkaMetadata#driven(Map)}, with this builder's options:
         * build the producer's {@code NetworkClient} with its {@link DrivenKafkaMetadata#metadataUpdater()} and
         * {@link DrivenKafkaMetadata#hostResolver()}, then {@link DrivenKafkaMetadata#attach} the client.
         *
         * @throws dev.kmeta.metadata.ConfigException if a value is bad (the message names the key)
         */
        public DrivenKafkaMetadata buildDriven() {
            return new DrivenKafkaMetadata(SenderCore.driven(MetadataConfig.from(props), resolver, ticker));
        }
    }
}
