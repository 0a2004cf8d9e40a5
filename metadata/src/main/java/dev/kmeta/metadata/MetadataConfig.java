package dev.kmeta.metadata;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * The settings of a metadata manager and its sender, read from a Kafka producer's own properties: validated and
 * defaulted once, here, so nothing downstream re-checks a value.
 *
 * <p>Keys and defaults are kafka-clients' ({@code metadata.max.age.ms}, {@code retry.backoff.ms}, ...), so a producer's
 * configuration can be passed as it is; kmeta's few keys of its own start with {@code kmeta.}. Values may be strings
 * (as read from a properties file; whitespace is trimmed), numbers or booleans; lists may be a {@code List<String>} or
 * a comma-separated string. Any bad value fails {@link #from(Map)} with a {@link ConfigException} naming the key, the
 * value and what is accepted. Keys kmeta does not read (serializers, {@code acks}, {@code ssl.*}, {@code sasl.*}, ...)
 * are never rejected: they stay in {@link #originals()}, for the sender's security setup. {@link #toString()} prints
 * the values kmeta uses and the other keys, with every credential hidden.
 *
 * <p>The constant for a key is the key in upper case with dots as underscores ({@link #METADATA_MAX_AGE_MS} is
 * {@code metadata.max.age.ms}, {@link #KMETA_METADATA_JITTER} is {@code kmeta.metadata.jitter}). Each key's default
 * and accepted range are written once, in kmeta's key table (the package-private {@code ConfigKey}), which validation,
 * {@link #toString()} and the tables of docs/configuration.md (checked against it by a test) all follow.
 *
 * <p>Concurrency: immutable and thread-safe once built. {@link #originals()} holds the user's values as given (not
 * deep copies).
 */
public final class MetadataConfig {
    /** The prefix of kmeta's own keys. */
    public static final String KMETA_PREFIX = "kmeta.";

    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String CLIENT_ID = "client.id";
    public static final String METADATA_MAX_AGE_MS = "metadata.max.age.ms";
    public static final String METADATA_MAX_IDLE_MS = "metadata.max.idle.ms";
    public static final String MAX_BLOCK_MS = "max.block.ms";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String RETRY_BACKOFF_MAX_MS = "retry.backoff.max.ms";
    public static final String RECONNECT_BACKOFF_MS = "reconnect.backoff.ms";
    public static final String RECONNECT_BACKOFF_MAX_MS = "reconnect.backoff.max.ms";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MS = "socket.connection.setup.timeout.ms";
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS = "socket.connection.setup.timeout.max.ms";
    public static final String METADATA_RECOVERY_STRATEGY = "metadata.recovery.strategy";
    public static final String METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS = "metadata.recovery.rebootstrap.trigger.ms";
    public static final String CLIENT_DNS_LOOKUP = "client.dns.lookup";
    public static final String BOOTSTRAP_RESOLVE_TIMEOUT_MS = "bootstrap.resolve.timeout.ms";
    public static final String METADATA_CLUSTER_CHECK_ENABLE = "metadata.cluster.check.enable";
    public static final String ALLOW_AUTO_CREATE_TOPICS = "allow.auto.create.topics";
    public static final String SECURITY_PROTOCOL = "security.protocol";
    public static final String KMETA_METADATA_MAX_TOPICS = "kmeta.metadata.max.topics";
    public static final String KMETA_METADATA_EPOCH_REWIND_ACCEPT_COUNT = "kmeta.metadata.epoch.rewind.accept.count";
    public static final String KMETA_METADATA_LEADERLESS_REFRESH_MS = "kmeta.metadata.leaderless.refresh.ms";
    public static final String KMETA_METADATA_JITTER = "kmeta.metadata.jitter";
    public static final String KMETA_METADATA_MAX_STALENESS_MS = "kmeta.metadata.max.staleness.ms";
    public static final String KMETA_METADATA_PREFETCH_TOPICS = "kmeta.metadata.prefetch.topics";
    public static final String KMETA_METADATA_LEADERLESS_PARTITION = "kmeta.metadata.leaderless.partition";

    /**
     * What {@code awaitLeader} does for a partition with no leader whose every replica is on a broker the cluster
     * reports offline ({@code kmeta.metadata.leaderless.partition}).
     */
    public enum LeaderlessPartition {
        /** Wait for a leader until the deadline (kafka-clients' semantics: a leader may come back). */
        HOLD,
        /** Fail at once with LEADER_NOT_AVAILABLE: no replica can lead until its broker returns. */
        FAIL;

        /** The configuration spelling, e.g. {@code hold}. */
        public String configValue() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What the client does when none of the brokers it knows can be reached ({@code metadata.recovery.strategy}). */
    public enum RecoveryStrategy {
        /** Keep trying the brokers already known. */
        NONE,
        /** Forget the learned brokers and start again from {@code bootstrap.servers}, resolving the names again. */
        REBOOTSTRAP;

        /** The configuration spelling, e.g. {@code rebootstrap}. */
        public String configValue() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How bootstrap and broker host names are resolved ({@code client.dns.lookup}), as in kafka-clients. */
    public enum DnsLookup {
        /** Try every IP address a name resolves to, in turn. */
        USE_ALL_DNS_IPS,
        /** Resolve each bootstrap name to its canonical names first, then use all their addresses. */
        RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY;

        /** The configuration spelling, e.g. {@code use_all_dns_ips}. */
        public String configValue() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Map<String, Object> originals;
    private final boolean clientIdGenerated;
    private final List<String> bootstrapServers;
    private final String clientId;
    private final long metadataMaxAgeMs;
    private final long metadataMaxIdleMs;
    private final long maxBlockMs;
    private final ConfigValues.Pair retryBackoff;
    private final ConfigValues.Pair reconnectBackoff;
    private final int requestTimeoutMs;
    private final ConfigValues.Pair connectionSetupTimeout;
    private final RecoveryStrategy recoveryStrategy;
    private final long rebootstrapTriggerMs;
    private final DnsLookup dnsLookup;
    private final long bootstrapResolveTimeoutMs;
    private final boolean clusterCheckEnable;
    private final boolean allowAutoCreateTopics;
    private final String securityProtocol;
    private final int maxTopics;
    private final int epochRewindAcceptCount;
    private final long leaderlessRefreshMs;
    private final double jitter;
    private final long maxStalenessMs;
    private final List<String> prefetchTopics;
    private final LeaderlessPartition leaderlessPartition;

    private MetadataConfig(Map<String, Object> originals, String inheritedClientId) {
        ConfigValues v = new ConfigValues(originals);
        this.originals = originals;
        this.bootstrapServers = List.copyOf(v.addresses(ConfigKey.BOOTSTRAP.name));
        this.metadataMaxAgeMs = ConfigKey.MAX_AGE.readLong(v);
        this.metadataMaxIdleMs = ConfigKey.MAX_IDLE.readLong(v);
        this.maxBlockMs = ConfigKey.MAX_BLOCK.readLong(v);
        this.retryBackoff = v.pair(ConfigKey.RETRY_BACKOFF, ConfigKey.RETRY_BACKOFF_MAX, false);
        this.reconnectBackoff = v.pair(ConfigKey.RECONNECT_BACKOFF, ConfigKey.RECONNECT_BACKOFF_MAX, true);
        this.requestTimeoutMs = ConfigKey.REQUEST_TIMEOUT.readInt(v);
        this.connectionSetupTimeout = v.pair(ConfigKey.SETUP_TIMEOUT, ConfigKey.SETUP_TIMEOUT_MAX, false);
        this.recoveryStrategy = ConfigKey.RECOVERY.readChoice(v, RecoveryStrategy.class);
        this.rebootstrapTriggerMs = ConfigKey.REBOOTSTRAP_TRIGGER.readLong(v);
        this.dnsLookup = ConfigKey.DNS_LOOKUP.readChoice(v, DnsLookup.class);
        this.bootstrapResolveTimeoutMs = ConfigKey.BOOTSTRAP_RESOLVE_TIMEOUT.readLong(v);
        this.clusterCheckEnable = ConfigKey.CLUSTER_CHECK.readBoolean(v);
        this.allowAutoCreateTopics = ConfigKey.AUTO_CREATE.readBoolean(v);
        this.securityProtocol = ConfigKey.PROTOCOL.readChoice(v, ConfigKey.Protocol.class).name();
        this.maxTopics = ConfigKey.MAX_TOPICS.readInt(v);
        this.epochRewindAcceptCount = ConfigKey.EPOCH_REWIND.readInt(v);
        this.leaderlessRefreshMs = ConfigKey.LEADERLESS_REFRESH.readLong(v);
        this.jitter = ConfigKey.JITTER.readDouble(v);
        this.maxStalenessMs = ConfigKey.MAX_STALENESS.readLong(v);
        this.prefetchTopics = ConfigKey.PREFETCH_TOPICS.readTopics(v, maxTopics);
        this.leaderlessPartition = ConfigKey.LEADERLESS_PARTITION.readChoice(v, LeaderlessPartition.class);
        String givenClientId = v.string(ConfigKey.CLIENT.name);
        // Generated last, so that a config that fails validation uses no number.
        this.clientIdGenerated = givenClientId == null || givenClientId.isEmpty();
        this.clientId = !clientIdGenerated ? givenClientId : ConfigValues.generatedClientId(inheritedClientId);
        ConfigKey.logKeysNotRead(originals);
    }

    /**
     * Builds a configuration from a producer's properties.
     *
     * @param props the properties, as the producer has them; copied (values themselves are not copied)
     * @return the validated configuration
     * @throws ConfigException if a value is invalid; the message names the key, the value and what is accepted
     */
    public static MetadataConfig from(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        return new MetadataConfig(ConfigValues.copy(props), null);
    }

    /**
     * Builds a configuration from a producer's {@link Properties}, including its defaults (the properties a
     * {@code Properties} object falls back to).
     *
     * @param props the properties; copied
     * @return the validated configuration
     * @throws ConfigException if a key is not a string or a value is invalid
     */
    public static MetadataConfig from(Properties props) {
        Objects.requireNonNull(props, "props");
        return new MetadataConfig(ConfigValues.copyWithDefaults(props), null);
    }

    /**
     * A copy of this configuration with one key set (or removed, if {@code value} is null), validated again.
     * A generated {@code client.id} is kept unless the copy sets one. Package-private: only
     * {@code MetadataConfigTest} needs it (issue 25: no public member for one test); a user builds a new
     * configuration from a changed map.
     *
     * @param key   the key
     * @param value the new value, or null to fall back to the default
     * @return the new configuration
     * @throws ConfigException if the result is invalid
     */
    MetadataConfig with(String key, Object value) {
        Objects.requireNonNull(key, "key");
        return new MetadataConfig(ConfigValues.with(originals, key, value), clientIdGenerated ? clientId : null);
    }

    /**
     * The bootstrap addresses ({@code bootstrap.servers}), each trimmed and as written ({@code host:port},
     * {@code [ipv6]:port}, optionally with a {@code protocol://} prefix, as Kafka allows). Empty when the key is
     * absent, as it may be when a manager is used without a sender; the sender calls
     * {@link #requireBootstrapServers()}.
     */
    public List<String> bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * The bootstrap addresses, for the sender, which cannot start without them.
     *
     * @return {@link #bootstrapServers()}, never empty
     * @throws ConfigException if {@code bootstrap.servers} is absent or lists no address
     */
    public List<String> requireBootstrapServers() {
        if (bootstrapServers.isEmpty()) {
            throw new ConfigException(BOOTSTRAP_SERVERS, "Missing required configuration " + BOOTSTRAP_SERVERS
                    + ": a list of host:port addresses of one or more brokers, e.g. broker1:9092,broker2:9092");
        }
        return bootstrapServers;
    }

    /**
     * The client id ({@code client.id}), used in the sender thread's name, in the MBean name and in requests. When
     * absent or blank: {@code kmeta-<n>}, {@code n} counting configurations built in this JVM from 1.
     */
    public String clientId() {
        return clientId;
    }

    /** The period of full refreshes ({@code metadata.max.age.ms}). */
    public long metadataMaxAgeMs() {
        return metadataMaxAgeMs;
    }

    /** How long an unused topic stays subscribed ({@code metadata.max.idle.ms}). */
    public long metadataMaxIdleMs() {
        return metadataMaxIdleMs;
    }

    /**
     * The budget of one {@code send()} for metadata and buffer waits ({@code max.block.ms}). May be as large as
     * {@code Long.MAX_VALUE}: deadline arithmetic must saturate.
     */
    public long maxBlockMs() {
        return maxBlockMs;
    }

    /**
     * The first backoff between failed metadata requests ({@code retry.backoff.ms}); it doubles up to
     * {@link #retryBackoffMaxMs()}. Always {@code <= retryBackoffMaxMs()}: both keys given with the maximum below the
     * base fail; one given and in conflict with the other's default wins, making the backoff constant at it
     * (kafka-clients would use the maximum as the constant).
     */
    public long retryBackoffMs() {
        return retryBackoff.base();
    }

    /** The backoff cap, reached by doubling ({@code retry.backoff.max.ms}, {@code >= retryBackoffMs}). */
    public long retryBackoffMaxMs() {
        return retryBackoff.max();
    }

    /** The first wait before reconnecting to a broker ({@code reconnect.backoff.ms}). */
    public long reconnectBackoffMs() {
        return reconnectBackoff.base();
    }

    /**
     * The reconnect backoff cap ({@code reconnect.backoff.max.ms}, {@code >= reconnectBackoffMs}). As in
     * kafka-clients, when only {@code reconnect.backoff.ms} is given this equals it (no exponential growth).
     */
    public long reconnectBackoffMaxMs() {
        return reconnectBackoff.max();
    }

    /** How long the sender waits for a broker's answer ({@code request.timeout.ms}; an int, as NetworkClient takes). */
    public int requestTimeoutMs() {
        return requestTimeoutMs;
    }

    /**
     * The first TCP connection setup timeout ({@code socket.connection.setup.timeout.ms}); it doubles on consecutive
     * failures up to {@link #socketConnectionSetupTimeoutMaxMs()}.
     */
    public long socketConnectionSetupTimeoutMs() {
        return connectionSetupTimeout.base();
    }

    /** The connection setup timeout cap ({@code socket.connection.setup.timeout.max.ms}, {@code >=} the base). */
    public long socketConnectionSetupTimeoutMaxMs() {
        return connectionSetupTimeout.max();
    }

    /** What to do when no known broker answers ({@code metadata.recovery.strategy}). */
    public RecoveryStrategy metadataRecoveryStrategy() {
        return recoveryStrategy;
    }

    /**
     * How long without any metadata before rebootstrapping ({@code metadata.recovery.rebootstrap.trigger.ms}); used
     * only with {@link RecoveryStrategy#REBOOTSTRAP}.
     */
    public long metadataRecoveryRebootstrapTriggerMs() {
        return rebootstrapTriggerMs;
    }

    /** How host names are resolved ({@code client.dns.lookup}). */
    public DnsLookup clientDnsLookup() {
        return dnsLookup;
    }

    /**
     * How long the bootstrap names may all fail to resolve before the instance reports it
     * ({@code bootstrap.resolve.timeout.ms}, KIP-909); 0: no bound (kmeta keeps resolving at each connection attempt).
     */
    public long bootstrapResolveTimeoutMs() {
        return bootstrapResolveTimeoutMs;
    }

    /**
     * Whether connections to learned brokers carry the cluster id and node id kmeta knows, so that a broker refuses a
     * misrouted connection ({@code metadata.cluster.check.enable}, KIP-1242; needs kafka-clients and brokers 4.4 and
     * {@code metadata.recovery.strategy=rebootstrap}).
     */
    public boolean metadataClusterCheckEnable() {
        return clusterCheckEnable;
    }

    /**
     * Whether metadata requests let the broker create missing topics ({@code allow.auto.create.topics}; by default
     * yes, which is what a kafka-clients producer always asks; the broker's {@code auto.create.topics.enable} decides).
     */
    public boolean allowAutoCreateTopics() {
        return allowAutoCreateTopics;
    }

    /**
     * The security protocol ({@code security.protocol}: {@code PLAINTEXT}, {@code SSL}, {@code SASL_PLAINTEXT},
     * {@code SASL_SSL}), upper case whatever the case given.
     */
    public String securityProtocol() {
        return securityProtocol;
    }

    /**
     * The cap on subscribed topics ({@code kmeta.metadata.max.topics}); subscribing one more fails clearly instead of
     * growing without bound. kafka-clients has no cap.
     */
    public int maxTopics() {
        return maxTopics;
    }

    /**
     * After how many consecutive answers with the same lower leader epoch for a partition the lower epoch is
     * accepted ({@code kmeta.metadata.epoch.rewind.accept.count}): franz-go's escape hatch for a real rollback.
     * {@code Integer.MAX_VALUE} means never, as in kafka-clients.
     */
    public int epochRewindAcceptCount() {
        return epochRewindAcceptCount;
    }

    /**
     * The first interval of the fast refreshes made while a partition has no leader
     * ({@code kmeta.metadata.leaderless.refresh.ms}); it doubles up to {@link #retryBackoffMaxMs()} (a larger value is
     * capped there) and the fast refreshes stop once every partition has a leader. 0 turns them off: leaderless
     * partitions then wait for an ordinary refresh, as in kafka-clients.
     */
    public long leaderlessRefreshMs() {
        return leaderlessRefreshMs;
    }

    /**
     * The jitter fraction of the backoffs kmeta computes itself ({@code kmeta.metadata.jitter}, 0 to 1): a backoff
     * {@code b} becomes a random value in {@code [b * (1 - jitter), b * (1 + jitter)]}, never above its cap. Tests set
     * 0 for determinism.
     */
    public double jitter() {
        return jitter;
    }

    /**
     * The staleness target ({@code kmeta.metadata.max.staleness.ms}): a subscribed topic whose metadata is older than
     * this is refreshed ahead of {@code metadata.max.age.ms} (the stale topics only; every subscribed topic in a full
     * request when all are stale), in at most one request per target period, each paced by the retry backoff. 0 (the
     * default) turns it off.
     */
    public long maxStalenessMs() {
        return maxStalenessMs;
    }

    /**
     * The topics to fetch at start-up ({@code kmeta.metadata.prefetch.topics}): subscribed when the instance starts,
     * so its first request asks for them, without blocking construction. Empty by default; an immutable list of legal
     * topic names, no more than {@link #maxTopics()}. Like any topic, one nobody sends to for
     * {@code metadata.max.idle.ms} expires.
     */
    public List<String> prefetchTopics() {
        return prefetchTopics;
    }

    /**
     * What a wait for a partition's leader does when the partition has none and every replica is on a broker the
     * cluster reports offline ({@code kmeta.metadata.leaderless.partition}): {@link LeaderlessPartition#HOLD} (wait
     * until the deadline) or {@link LeaderlessPartition#FAIL} (fail at once, diagnosed).
     */
    public LeaderlessPartition leaderlessPartition() {
        return leaderlessPartition;
    }

    /**
     * Every property as given, including those kmeta does not read ({@code ssl.*}, {@code sasl.*}, ...), for the
     * sender's security setup. Unmodifiable; it holds credentials, so never log it: log this object instead.
     */
    public Map<String, Object> originals() {
        return originals;
    }

    /**
     * The values in use and the other keys given, sorted, with the value of any key that may hold a credential
     * (password, secret, token, JAAS, key store, OAuth, ...) printed as {@code [hidden]}.
     */
    @Override
    public String toString() {
        return ConfigKey.describe(this, originals);
    }
}
