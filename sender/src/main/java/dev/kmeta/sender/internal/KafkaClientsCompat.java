package dev.kmeta.sender.internal;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.HostResolver;
import org.apache.kafka.clients.MetadataUpdater;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Everything kmeta does differently per kafka-clients version, in one place, chosen once at class initialisation
 * from what the kafka-clients on the class path actually has (by shape, not by version number). The rest of kmeta's
 * main code uses only kafka-clients classes and members that are the same in every supported version (a test checks every
 * reference of the compiled code against each version's jar).
 *
 * <p>What differs (4.0-4.3 vs 4.4):
 * <ul>
 *   <li>{@code LogContext}: {@code org.apache.kafka.common.utils.LogContext}, moved to {@code ...utils.internals}
 *       in 4.4; so every method that takes one ({@code ClientUtils.createNetworkClient}) has two descriptors.</li>
 *   <li>{@code ClientUtils.createNetworkClient}: 4.0-4.3 take (config, clientId, ...); 4.4 takes
 *       (config, bootstrapServers, clientId, ...) (its NetworkClient bootstraps through the updater).</li>
 *   <li>{@code AppInfoParser} (the version): {@code ...common.utils}, {@code ...common.utils.internals} in 4.4.</li>
 *   <li>Records ({@code MemoryRecords}, {@code SimpleRecord}, {@code BaseRecords}): {@code ...common.record} in
 *       4.0-4.2, {@code ...common.record.internal} from 4.3 (the example producer builds produce requests).</li>
 *   <li>Produce requests carry topic ids from 4.1 (Produce v13); 4.0 addresses topics by name only.</li>
 *   <li>KIP-1242 (4.4): {@code NetworkClient} asks its {@code MetadataUpdater} for the cluster id
 *       ({@code clusterId()}, new in 4.4) and sends it with the node id in ApiVersions v5
 *       ({@code metadata.cluster.check.enable}); before 4.4 nothing is sent and the key has no effect.</li>
 * </ul>
 *
 * <p>Versions: {@link #OLDEST} to {@link #NEWEST} are supported and tested. Below, {@link #requireSupported()}
 * refuses with a {@link KafkaException} naming the version found. A newer version (or one that does not say, e.g. a
 * shaded jar) gets a WARN once and a try: it works as long as the shapes above are found, and fails at creation, naming
 * the version and what is missing, if not. The version is the one of the jar kafka-clients' classes come from
 * ({@link KafkaClientsJars}); a second kafka-clients on the class path gets a WARN once too.
 *
 * <p>What was found (version, jar, method handles, refusal) is a {@link DetectedKafkaClients}, made once here.
 *
 * <p>Public only for kmeta's own modules (examples, cli, kafka-producer); not an API. Thread-safe (immutable after
 * class initialisation).
 */
@SuppressKafkaInternalApiUsage("kmeta's wire is kafka-clients' NetworkClient: its version-specific calls are made here")
public final class KafkaClientsCompat {
    private static final Logger log = LoggerFactory.getLogger(KafkaClientsCompat.class);

    /**
     * The oldest kafka-clients (major.minor) kmeta supports and tests. With {@link #NEWEST}, the one statement of
     * the supported range in kmeta's code: the KafkaProducer route's {@code KafkaClientsAbi}, the build's tested
     * versions and the docs take it from here (compat-tests' {@code SupportedRangeTest} fails when they differ).
     */
    public static final String OLDEST = "4.0";
    /** The newest kafka-clients (major.minor) kmeta is tested with; newer ones are tried with a WARN. */
    public static final String NEWEST = "4.4";
    /** How the supported range reads in messages ("4.0 to 4.4"). */
    public static final String SUPPORTED = OLDEST + " to " + NEWEST;

    private static final DetectedKafkaClients ABI = DetectedKafkaClients.detect();
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private KafkaClientsCompat() {
    }

    /**
     * The version of the kafka-clients whose classes are loaded, as its jar says ({@code kafka-version.properties}
     * there, else {@code AppInfoParser}), or "unknown".
     */
    public static String version() {
        return ABI.version;
    }

    /** The commit kafka-clients was built from, as it says of itself ({@code AppInfoParser}), or "unknown". */
    public static String commitId() {
        return ABI.commitId;
    }

    /** The WARN of more than one kafka-clients on the class path, or null when there is one. */
    public static String twoJars() {
        return ABI.twoJars;
    }

    /** Where kafka-clients was loaded from (its jar), for messages; "unknown location" if it cannot be told. */
    public static String location() {
        return ABI.location;
    }

    /**
     * Fails unless kmeta can run on the kafka-clients it finds; called when an instance is created (and first in
     * the example producer). Logs a WARN once on a version newer than the newest tested one (or an unknown one), and
     * once when more than one kafka-clients is on the class path.
     *
     * @throws KafkaException on a version below 4.0, or when a needed kafka-clients method is missing
     */
    public static void requireSupported() {
        if (ABI.refusal != null) {
            throw new KafkaException(ABI.refusal);
        }
        if ((ABI.untested != null || ABI.twoJars != null) && WARNED.compareAndSet(false, true)) {
            if (ABI.twoJars != null) {
                log.warn(ABI.twoJars);
            }
            if (ABI.untested != null) {
                log.warn(ABI.untested);
            }
        }
    }

    /**
     * Whether this kafka-clients' {@code ClientUtils.createNetworkClient} takes the bootstrap servers (4.4) - the
     * NetworkClient then bootstraps through its updater - or not (4.0-4.3). For tests and diagnostics.
     */
    public static boolean networkClientTakesBootstrapServers() {
        return ABI.createNetworkClient4_4 != null;
    }

    /**
     * {@code ClientUtils.createNetworkClient} with a custom {@link MetadataUpdater} and {@link HostResolver} (no
     * {@code Metadata}, no throttle sensor, no telemetry), as each version spells it.
     *
     * @param logPrefix the prefix of the client's {@code LogContext}
     */
    public static NetworkClient createNetworkClient(AbstractConfig config, List<String> bootstrapServers,
                                                    String clientId, Metrics metrics, String metricGroupPrefix,
                                                    String logPrefix, ApiVersions apiVersions, Time time,
                                                    int maxInFlightPerConnection, int requestTimeoutMs,
                                                    MetadataUpdater updater, HostResolver resolver) {
        requireSupported();
        try {
            Object logContext = ABI.newLogContext.invoke(logPrefix);
            if (ABI.createNetworkClient4_4 != null) {
                return (NetworkClient) ABI.createNetworkClient4_4.invoke(config, bootstrapServers, clientId, metrics,
                        metricGroupPrefix, logContext, apiVersions, time, maxInFlightPerConnection,
                        requestTimeoutMs, null, updater, resolver, null, null);
            }
            return (NetworkClient) ABI.createNetworkClient4_0.invoke(config, clientId, metrics, metricGroupPrefix,
                    logContext, apiVersions, time, maxInFlightPerConnection, requestTimeoutMs, null, updater,
                    resolver, null, null);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new KafkaException("kafka-clients " + ABI.version + ": createNetworkClient failed", e);
        }
    }

    /**
     * Whether this kafka-clients' {@code NetworkClient} sends the client's cluster id and node id in ApiVersions
     * (KIP-1242, 4.4: its {@code MetadataUpdater} has {@code clusterId()}), so that a broker can refuse a misrouted
     * connection; else {@code metadata.cluster.check.enable} has no effect.
     */
    public static boolean sendsClusterIdentity() {
        return ABI.sendsClusterIdentity;
    }

    /** Whether produce requests can address topics by id (4.1+, Produce v13); else by name only (4.0). */
    public static boolean produceByTopicId() {
        return ABI.setProduceTopicId != null;
    }

    /** Sets the topic id of a produce request's topic where the version has the field (4.1+); else nothing. */
    public static TopicProduceData setTopicId(TopicProduceData topic, Uuid topicId) {
        if (ABI.setProduceTopicId != null) {
            invoke(ABI.setProduceTopicId, topic, topicId);
        }
        return topic;
    }

    /** The topic id of a produce answer's topic (4.1+), or {@link Uuid#ZERO_UUID} where the version has none. */
    public static Uuid topicId(TopicProduceData topic) {
        return ABI.produceTopicId == null ? Uuid.ZERO_UUID : (Uuid) invoke(ABI.produceTopicId, topic);
    }

    /** The topic id of a produce answer's topic (4.1+), or {@link Uuid#ZERO_UUID} where the version has none. */
    public static Uuid topicId(TopicProduceResponse topic) {
        return ABI.produceResponseTopicId == null ? Uuid.ZERO_UUID
                : (Uuid) invoke(ABI.produceResponseTopicId, topic);
    }

    /**
     * Sets uncompressed records (one batch, magic v2) as the partition's records: {@code MemoryRecords.withRecords}
     * over {@code SimpleRecord}s, from whichever package the version keeps them in.
     */
    public static PartitionProduceData setRecords(PartitionProduceData partition, long[] timestamps, byte[][] keys,
                                                  byte[][] values) {
        int n = timestamps.length;
        if (keys.length != n || values.length != n) {
            throw new IllegalArgumentException("timestamps, keys and values differ in length");
        }
        try {
            Object records = Array.newInstance(ABI.simpleRecord, n);
            for (int i = 0; i < n; i++) {
                Array.set(records, i, ABI.newSimpleRecord.invoke(timestamps[i], keys[i], values[i]));
            }
            ABI.setRecords.invoke(partition, ABI.withRecords.invoke(Compression.NONE, records));
            return partition;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new KafkaException("kafka-clients " + ABI.version + ": building records failed", e);
        }
    }

    private static Object invoke(MethodHandle handle, Object... args) {
        try {
            return handle.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new KafkaException(e);
        }
    }

    /**
     * Why kmeta cannot run on the kafka-clients on the class path (the message {@link #requireSupported()} throws),
     * or null if it can.
     */
    public static String refusal() {
        return ABI.refusal;
    }

    /** Compares a "major.minor[.patch][-suffix]" version with "major.minor"; null if either does not parse. */
    public static Integer compareMinor(String version, String majorMinor) {
        int[] other = majorMinor(majorMinor);
        int[] own = majorMinor(version);
        if (own == null || other == null) {
            return null;
        }
        return own[0] != other[0] ? Integer.compare(own[0], other[0]) : Integer.compare(own[1], other[1]);
    }

    private static int[] majorMinor(String version) {
        String[] parts = version == null ? new String[0] : version.split("[.-]");
        if (parts.length < 2) {
            return null;
        }
        try {
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
