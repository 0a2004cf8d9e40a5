package dev.kmeta.metadata;

import dev.kmeta.metadata.MetadataConfig.DnsLookup;
import dev.kmeta.metadata.MetadataConfig.RecoveryStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

import static dev.kmeta.metadata.MetadataConfig.*;

/**
 * One key {@link MetadataConfig} reads - name, type, default, range, doc, and how {@code toString} shows its value -
 * and {@link #ALL}, the table of them: the one place each key's default and range are written. The table drives
 * validation (each {@code read} method hands {@link ConfigValues} the key's own default and range), {@code toString}
 * (in table order) and docs/configuration.md, whose rows {@link #docRow()} renders and a unit test compares.
 *
 * <p>Immutable and thread-safe.
 */
final class ConfigKey {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataConfig.class);

    /** Kafka's security protocols; {@link MetadataConfig#securityProtocol()} returns the name. */
    enum Protocol { PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL }

    /** How a key's value is written and read. */
    enum Type { ADDRESSES, STRING, LONG, INT, DOUBLE, BOOLEAN, CHOICE, TOPICS }

    final String name;
    final Type type;
    /** The typed default (a Long, Integer, Double, Boolean or enum constant); null for ADDRESSES and STRING. */
    final Object defaultValue;
    /** The range, for LONG, INT and DOUBLE keys (read as the key's type); else null. */
    final Number min;
    final Number max;
    /** For the maximum of a base/maximum pair: the base key it must not be below; else null. */
    final String atLeastKey;
    /** The meaning, as docs/configuration.md says it. */
    final String doc;
    private final String defaultText;
    private final String acceptedText;
    private final Function<Object, String> configName;
    private final Function<MetadataConfig, Object> shown;

    private ConfigKey(String name, Type type, Object defaultValue, Number min, Number max, String atLeastKey,
                      String defaultText, String acceptedText, Function<Object, String> configName, String doc,
                      Function<MetadataConfig, Object> shown) {
        this.name = name;
        this.type = type;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.atLeastKey = atLeastKey;
        this.defaultText = defaultText;
        this.acceptedText = acceptedText;
        this.configName = configName;
        this.doc = doc;
        this.shown = shown;
    }

    // ---------------------------------------------------------------- the table

    static final ConfigKey BOOTSTRAP = new ConfigKey(BOOTSTRAP_SERVERS, Type.ADDRESSES, null, null, null, null, "none",
            "`host:port` entries, port 1..65535", null, "Brokers to ask first. IPv6 in brackets (`[::1]:9092`); a "
            + "`protocol://` prefix is tolerated, as in Kafka. Required to connect (the sender fails without it, "
            + "naming the key); a manager used without a sender may leave it out.", MetadataConfig::bootstrapServers);
    static final ConfigKey CLIENT = new ConfigKey(CLIENT_ID, Type.STRING, null, null, null, null, "`kmeta-<n>`",
            "any string", null, "Names the sender thread (`kmeta-metadata-sender \\| <client.id>`), the MBean and "
            + "the requests.", MetadataConfig::clientId);
    static final ConfigKey MAX_AGE = atLeast(METADATA_MAX_AGE_MS, 300_000, 0,
            "Period of full refreshes, even when nothing asked for one.", MetadataConfig::metadataMaxAgeMs);
    static final ConfigKey MAX_IDLE = atLeast(METADATA_MAX_IDLE_MS, 300_000, 5_000, "A topic not used for this "
            + "long is no longer subscribed (and no longer refreshed).", MetadataConfig::metadataMaxIdleMs);
    static final ConfigKey MAX_BLOCK = atLeast(MAX_BLOCK_MS, 60_000, 0, "The one time budget of a `send()`: every "
            + "metadata wait it goes through, then the buffer wait, draw on it.", MetadataConfig::maxBlockMs);
    static final ConfigKey RETRY_BACKOFF = atLeast(RETRY_BACKOFF_MS, 100, 0, "First backoff after a failed or "
            + "unhelpful metadata request; doubles up to the maximum, with jitter (`kmeta.metadata.jitter`).",
            MetadataConfig::retryBackoffMs);
    static final ConfigKey RETRY_BACKOFF_MAX = maxOf(RETRY_BACKOFF_MAX_MS, 1_000, RETRY_BACKOFF_MS,
            "Cap of the retry backoff.", MetadataConfig::retryBackoffMaxMs);
    static final ConfigKey RECONNECT_BACKOFF = atLeast(RECONNECT_BACKOFF_MS, 50, 0, "First wait before "
            + "reconnecting to a broker; doubles up to the maximum.", MetadataConfig::reconnectBackoffMs);
    static final ConfigKey RECONNECT_BACKOFF_MAX = maxOf(RECONNECT_BACKOFF_MAX_MS, 1_000, RECONNECT_BACKOFF_MS,
            "Cap of the reconnect backoff.", MetadataConfig::reconnectBackoffMaxMs);
    static final ConfigKey REQUEST_TIMEOUT = integer(REQUEST_TIMEOUT_MS, 30_000, 0, "How long to wait for a "
            + "broker's answer.", MetadataConfig::requestTimeoutMs);
    static final ConfigKey SETUP_TIMEOUT = atLeast(SOCKET_CONNECTION_SETUP_TIMEOUT_MS, 10_000, 0, "First TCP "
            + "connection setup timeout; doubles on consecutive failures.",
            MetadataConfig::socketConnectionSetupTimeoutMs);
    static final ConfigKey SETUP_TIMEOUT_MAX = maxOf(SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS, 30_000,
            SOCKET_CONNECTION_SETUP_TIMEOUT_MS, "Cap of the connection setup timeout.",
            MetadataConfig::socketConnectionSetupTimeoutMaxMs);
    static final ConfigKey RECOVERY = choice(METADATA_RECOVERY_STRATEGY, RecoveryStrategy.REBOOTSTRAP,
            RecoveryStrategy::configValue, "What to do when no known broker can be reached: keep trying them "
            + "(`none`), or forget the learned brokers and start again from `bootstrap.servers`, resolving the "
            + "names again (`rebootstrap`).", c -> c.metadataRecoveryStrategy().configValue());
    static final ConfigKey REBOOTSTRAP_TRIGGER = atLeast(METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS, 300_000, 0,
            "With `rebootstrap`: how long without any metadata before rebootstrapping. A broker's "
            + "`REBOOTSTRAP_REQUIRED` answer rebootstraps at once.",
            MetadataConfig::metadataRecoveryRebootstrapTriggerMs);
    static final ConfigKey DNS_LOOKUP = choice(CLIENT_DNS_LOOKUP, DnsLookup.USE_ALL_DNS_IPS, DnsLookup::configValue,
            "How host names are resolved.", c -> c.clientDnsLookup().configValue());
    static final ConfigKey BOOTSTRAP_RESOLVE_TIMEOUT = atLeast(BOOTSTRAP_RESOLVE_TIMEOUT_MS, 0, 0, "KIP-909: how long "
            + "every bootstrap name may fail to resolve before the instance reports it (one ERROR log line, "
            + "`KafkaMetadata.bootstrapResolutionFailure()`, `stats().bootstrapResolveTimeouts()`), without waiting for "
            + "a send. kmeta keeps resolving at each connection attempt and recovers when a name resolves (Kafka's "
            + "client must be re-created). 0: no bound - unlike Kafka, whose 0 fails the client's construction. On "
            + "the KafkaProducer route (`KmetaProducer.create`) the key has Kafka's meaning instead: 0 or unset fails "
            + "`create` when no name resolves, a positive bound fails sends with `BootstrapResolutionException` "
            + "(docs/kafka-producer.md, \"Kafka's keys keep Kafka's meaning\").",
            MetadataConfig::bootstrapResolveTimeoutMs);
    static final ConfigKey CLUSTER_CHECK = new ConfigKey(METADATA_CLUSTER_CHECK_ENABLE, Type.BOOLEAN, true, null,
            null, null, "true", "true, false", null, "KIP-1242: connections to learned brokers carry the cluster id "
            + "and node id kmeta knows (ApiVersions v5); a 4.4 broker that is another node or cluster answers "
            + "`REBOOTSTRAP_REQUIRED` and kmeta rebootstraps (`MISROUTED_CONNECTION`). Needs kafka-clients 4.4 and "
            + "`rebootstrap`; no effect otherwise.", MetadataConfig::metadataClusterCheckEnable);
    static final ConfigKey AUTO_CREATE = new ConfigKey(ALLOW_AUTO_CREATE_TOPICS, Type.BOOLEAN, true, null, null, null,
            "true", "true, false", null, "Whether metadata requests let the broker create a missing topic (the "
            + "broker's `auto.create.topics.enable` still decides).", MetadataConfig::allowAutoCreateTopics);
    static final ConfigKey PROTOCOL = choice(SECURITY_PROTOCOL, Protocol.PLAINTEXT, Protocol::name,
            "Protocol to talk to brokers.", MetadataConfig::securityProtocol);
    static final ConfigKey MAX_TOPICS = integer(KMETA_METADATA_MAX_TOPICS, 100_000, 1, "Cap on subscribed topics. "
            + "Subscribing one more fails clearly instead of growing without bound.", MetadataConfig::maxTopics);
    static final ConfigKey EPOCH_REWIND = integer(KMETA_METADATA_EPOCH_REWIND_ACCEPT_COUNT, 5, 1, "A partition's "
            + "leader epoch never goes backwards, except: after this many consecutive answers agreeing on the same "
            + "lower epoch, kmeta accepts it.", MetadataConfig::epochRewindAcceptCount);
    static final ConfigKey LEADERLESS_REFRESH = atLeast(KMETA_METADATA_LEADERLESS_REFRESH_MS, 100, 0, "While some "
            + "partition has no leader, refresh after this long, doubling up to `retry.backoff.max.ms` (a larger "
            + "value is capped there); stop once every partition has a leader. 0 turns this off.",
            MetadataConfig::leaderlessRefreshMs);
    static final ConfigKey JITTER = new ConfigKey(KMETA_METADATA_JITTER, Type.DOUBLE, 0.2, 0.0, 1.0, null, "0.2",
            "0 .. 1", null, "Jitter of the backoffs the manager computes (metadata retry backoff, leaderless "
            + "refreshes): a backoff `b` becomes a random value between `b * (1 - jitter)` and `b * (1 + jitter)`, "
            + "never above its cap. 0 makes them exact (for tests).", MetadataConfig::jitter);

    static final ConfigKey MAX_STALENESS = atLeast(KMETA_METADATA_MAX_STALENESS_MS, 0, 0, "Staleness target: a "
            + "subscribed topic whose metadata is older than this is refreshed ahead of `metadata.max.age.ms` (only the "
            + "stale topics; a full request when all are), counted in `StaleRefreshes`; at most one such request per "
            + "target period, paced by the retry backoff, so a topic's age stays below about twice the target. 0 turns "
            + "this off.", MetadataConfig::maxStalenessMs);
    static final ConfigKey PREFETCH_TOPICS = new ConfigKey(KMETA_METADATA_PREFETCH_TOPICS, Type.TOPICS, null, null,
            null, null, "empty", "topic names, comma-separated", null, "Topics to fetch at start-up: subscribed when "
            + "the instance starts, so its first request asks for them (construction does not wait). A send to one "
            + "then finds it known; one nobody sends to expires after `metadata.max.idle.ms`.",
            MetadataConfig::prefetchTopics);
    static final ConfigKey LEADERLESS_PARTITION = choice(KMETA_METADATA_LEADERLESS_PARTITION,
            MetadataConfig.LeaderlessPartition.HOLD, MetadataConfig.LeaderlessPartition::configValue, "What "
            + "`awaitLeader` (`KafkaMetadata`'s own send path) does for a partition with no leader whose every replica "
            + "is on a broker the cluster reports offline: wait for a leader until the deadline (`hold`), or fail at "
            + "once with `LEADER_NOT_AVAILABLE`, naming the replicas and the fix (`fail`). A partition with a replica "
            + "alive (an election) is waited for either way. The KafkaProducer route's own key is "
            + "`kmeta.producer.leaderless.partition` (below).", c -> c.leaderlessPartition().configValue());

    /** Every key {@link MetadataConfig} reads, in the order {@code toString} prints them. */
    static final List<ConfigKey> ALL = List.of(BOOTSTRAP, CLIENT, MAX_AGE, MAX_IDLE, MAX_BLOCK, RETRY_BACKOFF,
            RETRY_BACKOFF_MAX, RECONNECT_BACKOFF, RECONNECT_BACKOFF_MAX, REQUEST_TIMEOUT, SETUP_TIMEOUT,
            SETUP_TIMEOUT_MAX, RECOVERY, REBOOTSTRAP_TRIGGER, DNS_LOOKUP, BOOTSTRAP_RESOLVE_TIMEOUT, CLUSTER_CHECK,
            AUTO_CREATE, PROTOCOL, MAX_TOPICS, EPOCH_REWIND, LEADERLESS_REFRESH, JITTER, MAX_STALENESS,
            PREFETCH_TOPICS, LEADERLESS_PARTITION);

    private static final Set<String> NAMES = Set.copyOf(names());

    /** The names of {@link #ALL}, in order. */
    static List<String> names() {
        List<String> names = new ArrayList<>();
        ALL.forEach(k -> names.add(k.name));
        return List.copyOf(names);
    }

    /** The names of kmeta's own keys (prefixed {@code kmeta.}), in order. */
    static List<String> kmetaNames() {
        List<String> names = new ArrayList<>();
        ALL.stream().filter(k -> k.name.startsWith(KMETA_PREFIX)).forEach(k -> names.add(k.name));
        return List.copyOf(names);
    }

    /** The properties given for keys not in the table (kept in {@code originals}, shown as "other" keys). */
    static Map<String, Object> notInTable(Map<String, Object> originals) {
        Map<String, Object> other = new LinkedHashMap<>(originals);
        other.keySet().removeAll(NAMES);
        return other;
    }

    /** Warns of each {@code kmeta.} key not in the table (a typo, most likely); lists the others at DEBUG. */
    static void logKeysNotRead(Map<String, Object> originals) {
        List<String> notRead = new ArrayList<>();
        for (String key : notInTable(originals).keySet()) {
            if (key.startsWith(KMETA_PREFIX)) {
                LOG.warn("Unknown configuration key {} ignored: kmeta's own keys are {}", key, kmetaNames());
            } else if (!key.startsWith("ssl.") && !key.startsWith("sasl.")) {
                notRead.add(key);
            }
        }
        if (!notRead.isEmpty() && LOG.isDebugEnabled()) {
            LOG.debug("Configuration keys kmeta does not read (kept in originals): {}", notRead);
        }
    }

    private static ConfigKey atLeast(String name, long defaultValue, long min, String doc,
                                     Function<MetadataConfig, Object> shown) {
        return new ConfigKey(name, Type.LONG, defaultValue, min, Long.MAX_VALUE, null, Long.toString(defaultValue),
                ">= " + min, null, doc, shown);
    }

    /** The maximum of a base/maximum pair: read as any whole number {@code >= 0}, then kept {@code >= base}. */
    private static ConfigKey maxOf(String name, long defaultValue, String baseKey, String doc,
                                   Function<MetadataConfig, Object> shown) {
        return new ConfigKey(name, Type.LONG, defaultValue, 0, Long.MAX_VALUE, baseKey, Long.toString(defaultValue),
                ">= `" + baseKey + "`", null, doc, shown);
    }

    private static ConfigKey integer(String name, int defaultValue, int min, String doc,
                                     Function<MetadataConfig, Object> shown) {
        return new ConfigKey(name, Type.INT, defaultValue, min, Integer.MAX_VALUE, null, Integer.toString(defaultValue),
                min + " .. " + Integer.MAX_VALUE, null, doc, shown);
    }

    @SuppressWarnings("unchecked")
    private static <E extends Enum<E>> ConfigKey choice(String name, E defaultValue, Function<E, String> configName,
                                                        String doc, Function<MetadataConfig, Object> shown) {
        Function<Object, String> spelling = value -> configName.apply((E) value);
        List<String> accepted = new ArrayList<>();
        for (E constant : defaultValue.getDeclaringClass().getEnumConstants()) {
            accepted.add("`" + configName.apply(constant) + "`");
        }
        String defaultText = "`" + configName.apply(defaultValue) + "`";
        return new ConfigKey(name, Type.CHOICE, defaultValue, null, null, null, defaultText,
                String.join(", ", accepted), spelling, doc, shown);
    }

    // ---------------------------------------------------------------- reading (validation by ConfigValues)

    long readLong(ConfigValues v) {
        require(Type.LONG);
        return v.longBetween(name, (Long) defaultValue, min.longValue(), max.longValue());
    }

    int readInt(ConfigValues v) {
        require(Type.INT);
        return v.intBetween(name, (Integer) defaultValue, min.intValue(), max.intValue());
    }

    double readDouble(ConfigValues v) {
        require(Type.DOUBLE);
        return v.doubleBetween(name, (Double) defaultValue, min.doubleValue(), max.doubleValue());
    }

    boolean readBoolean(ConfigValues v) {
        require(Type.BOOLEAN);
        return v.bool(name, (Boolean) defaultValue);
    }

    <E extends Enum<E>> E readChoice(ConfigValues v, Class<E> enumType) {
        require(Type.CHOICE);
        return v.choice(name, enumType.cast(defaultValue), enumType, configName::apply);
    }

    /** The topic names, each legal, no more than {@code maxTopics} of them. */
    List<String> readTopics(ConfigValues v, int maxTopics) {
        require(Type.TOPICS);
        return v.topicNames(name, maxTopics);
    }

    private void require(Type expected) {
        if (type != expected) {
            throw new IllegalStateException(name + " is a " + type + " key, not " + expected);
        }
    }

    // ---------------------------------------------------------------- showing

    /** {@code name=value} of this key in {@code config}, for {@code toString} (no key of the table holds a secret). */
    String shown(MetadataConfig config) {
        return name + "=" + shown.apply(config);
    }

    /**
     * {@link MetadataConfig#toString()}: every key of the table in order, then the other keys given, sorted, with the
     * value of any that may hold a credential shown as {@code [hidden]}.
     */
    static String describe(MetadataConfig config, Map<String, Object> originals) {
        StringBuilder sb = new StringBuilder("MetadataConfig{");
        for (ConfigKey key : ALL) {
            sb.append(key.shown(config)).append(", ");
        }
        sb.append("other={");
        String separator = "";
        for (Map.Entry<String, Object> e : new TreeMap<>(notInTable(originals)).entrySet()) {
            sb.append(separator).append(e.getKey()).append('=')
                    .append(ConfigValues.isSecret(e.getKey()) ? "[hidden]" : e.getValue());
            separator = ", ";
        }
        return sb.append("}}").toString();
    }

    /** This key's row in docs/configuration.md: {@code | `name` | default | accepted | meaning |}. */
    String docRow() {
        return "| `" + name + "` | " + defaultText + " | " + acceptedText + " | " + doc + " |";
    }

    @Override
    public String toString() {
        return name;
    }
}
