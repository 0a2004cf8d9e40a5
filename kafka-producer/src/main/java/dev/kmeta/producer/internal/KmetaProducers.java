package dev.kmeta.producer.internal;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import dev.kmeta.producer.internal.network.LeaderlessPartitions;
import dev.kmeta.producer.internal.network.StaleQueues;
import dev.kmeta.producer.internal.stats.Fallbacks;
import dev.kmeta.producer.internal.stats.RouteInstances;
import dev.kmeta.producer.internal.stats.RouteMBean;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a kmeta-backed {@link KafkaProducer}: splits the configuration (kmeta's {@code kmeta.producer.*} keys
 * here, {@code kmeta.*} to kmeta, the rest to the producer as given), takes a kmeta handle (shared per cluster and
 * identity, or private), and constructs the producer through {@link KafkaClientsAbi} with kmeta's
 * {@code ProducerMetadata} stand-in and {@link DiagnosingInterceptor} appended to {@code interceptor.classes}. On a
 * kafka-clients the route does not support ({@link KafkaClientsAbi#unsupportedReason()}) it returns a stock
 * KafkaProducer instead, logs one WARN (also on stderr when SLF4J has no provider) and counts it
 * ({@link #fallbacks()}, the route MBean's {@code Fallbacks}), unless
 * {@value #UNSUPPORTED_VERSION}={@value #UNSUPPORTED_FAIL}.
 *
 * <p>Thread-safe; its only state is the fallback count.
 */
@SuppressKafkaInternalApiUsage("hands kmeta's ProducerMetadata stand-in to KafkaProducer: the route's whole point")
public final class KmetaProducers {
    private static final Logger log = LoggerFactory.getLogger(KmetaProducers.class);

    /** {@code kmeta.producer.shared.metadata} (default true): one kmeta instance per cluster and identity. */
    public static final String SHARED_METADATA = "kmeta.producer.shared.metadata";
    /** {@code kmeta.producer.give.up.early.ms} (default {@value #DEFAULT_GIVE_UP_EARLY_MS}, 0-1000). */
    public static final String GIVE_UP_EARLY_MS = "kmeta.producer.give.up.early.ms";
    /**
     * How long before {@code max.block.ms} runs out a send waiting for metadata gives up, so that kmeta's diagnosed
     * timeout reaches the application instead of KafkaProducer's fixed message (a prototype measured 0 ms: 0 of 3
     * diagnosed; 5 ms: 2 of 3; 50 ms: 3 of 3, and 0 of 2,200 in a storm).
     */
    public static final long DEFAULT_GIVE_UP_EARLY_MS = 50;
    private static final long MAX_GIVE_UP_EARLY_MS = 1_000;
    /**
     * {@code kmeta.producer.unsupported.version}: what {@link #create} does on a kafka-clients the route does not
     * support: {@value #UNSUPPORTED_FALLBACK} (default: a stock KafkaProducer and a WARN) or {@value #UNSUPPORTED_FAIL}
     * (a {@link KafkaException} naming the version).
     */
    public static final String UNSUPPORTED_VERSION = "kmeta.producer.unsupported.version";
    /**
     * {@code kmeta.producer.leaderless.partition}: what happens to records for a partition without a leader -
     * {@code hold} (default: queued until {@code delivery.timeout.ms}, named by a WARN within {@code max.block.ms})
     * or {@code fail} (failed at once, diagnosed, when every replica is on a broker the cluster reports offline).
     */
    public static final String LEADERLESS_PARTITION = LeaderlessPartitions.KEY;
    /** {@link #UNSUPPORTED_VERSION}'s default: a stock KafkaProducer. */
    public static final String UNSUPPORTED_FALLBACK = "fallback";
    /** {@link #UNSUPPORTED_VERSION}'s other value: refuse. */
    public static final String UNSUPPORTED_FAIL = "fail";
    private static final String PRODUCER_PREFIX = "kmeta.producer.";
    /** kafka-clients 4.4's asynchronous bootstrap: kmeta bootstraps, the producer's network client must not. */
    private static final String BOOTSTRAP_RESOLVE_TIMEOUT_MS = "bootstrap.resolve.timeout.ms";

    private KmetaProducers() {
    }

    /**
     * A KafkaProducer whose metadata is kmeta's.
     *
     * @param props    the producer's configuration (Kafka's keys, plus {@code kmeta.*})
     * @param resolver a DNS hook for kmeta's connections, or null; given, the kmeta instance is private
     * @param ticker   kmeta's clock (the instance's and the route's), or null for the system's; given, the kmeta
     *                 instance is private
     * @throws org.apache.kafka.common.KafkaException on an unsupported kafka-clients, or as KafkaProducer would
     * @throws ConfigException                        if a value is bad (the message names the key)
     */
    public static <K, V> Producer<K, V> create(Map<String, ?> props, Serializer<K> keySerializer,
                                               Serializer<V> valueSerializer, HostResolverHook resolver,
                                               Ticker ticker) {
        Objects.requireNonNull(props, "props");
        Map<String, Object> all = new HashMap<>();
        props.forEach(all::put);
        boolean failIfUnsupported = failIfUnsupported(all);
        RouteMBean.registerOnce();
        Boolean sharedGiven = bool(all, SHARED_METADATA);
        boolean shared = sharedGiven == null || sharedGiven;
        if (resolver != null || ticker != null) {
            if (Boolean.TRUE.equals(sharedGiven)) {
                throw new ConfigException(SHARED_METADATA, true, "a " + (resolver != null ? "DNS hook (hostResolver)"
                        : "ticker") + " needs a private kmeta instance: leave " + SHARED_METADATA + " unset or false");
            }
            shared = false;
        }
        long giveUpEarlyMs = giveUpEarlyMs(all);
        LeaderlessPartitions.Mode leaderlessMode = LeaderlessPartitions.Mode.of(all.get(LEADERLESS_PARTITION));
        String unsupported = KafkaClientsAbi.unsupportedReason();
        if (unsupported != null) {
            if (failIfUnsupported) {
                KafkaClientsAbi.current(); // throws, naming the version
            }
            return stock(all, keySerializer, valueSerializer, unsupported);
        }
        KafkaClientsAbi abi = KafkaClientsAbi.current();

        Map<String, Object> kmetaProps = new HashMap<>();
        Map<String, Object> producerProps = new HashMap<>();
        all.forEach((k, v) -> {
            if (k.startsWith(PRODUCER_PREFIX)) {
                if (!k.equals(SHARED_METADATA) && !k.equals(GIVE_UP_EARLY_MS) && !k.equals(UNSUPPORTED_VERSION)
                        && !k.equals(LEADERLESS_PARTITION)) {
                    log.warn("Unknown configuration key {} ignored: kmeta's KafkaProducer keys are {}, {}, {} and {}",
                            k, SHARED_METADATA, GIVE_UP_EARLY_MS, UNSUPPORTED_VERSION, LEADERLESS_PARTITION);
                }
            } else if (k.startsWith(MetadataConfig.KMETA_PREFIX)) {
                kmetaProps.put(k, v);
            } else {
                kmetaProps.put(k, v);
                producerProps.put(k, v);
            }
        });
        if (producerProps.remove(BOOTSTRAP_RESOLVE_TIMEOUT_MS) != null) {
            log.info("{} applies to kmeta's bootstrap, not to the producer's network client: kmeta bootstraps "
                    + "the producer's metadata", BOOTSTRAP_RESOLVE_TIMEOUT_MS);
        }
        producerProps.put(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG,
                withOurInterceptor(producerProps.get(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG)));
        DiagnosingInterceptor.BridgeRef ref = new DiagnosingInterceptor.BridgeRef();
        producerProps.put(DiagnosingInterceptor.BRIDGE_CONFIG, ref);
        if (keySerializer != null) {
            producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, keySerializer.getClass());
        }
        if (valueSerializer != null) {
            producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, valueSerializer.getClass());
        }
        ProducerConfig config = new ProducerConfig(producerProps); // validates before kmeta starts
        failAsStockIfNoBootstrapNameResolves(config, all.get(BOOTSTRAP_RESOLVE_TIMEOUT_MS), resolver);
        String clientId = config.getString(ProducerConfig.CLIENT_ID_CONFIG);
        kmetaProps.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, clientId);

        KafkaMetadata metadata = start(kmetaProps, shared, resolver, ticker);
        ProducerBridge bridge = new ProducerBridge(metadata,
                config.getLong(ProducerConfig.METADATA_MAX_IDLE_CONFIG), giveUpEarlyMs, config.getLong(ProducerConfig.MAX_BLOCK_MS_CONFIG), "[Producer clientId=" + clientId
                + "] ", clientId);
        ref.set(bridge);
        bridge.recreations.partitioning(config.getClass(ProducerConfig.PARTITIONER_CLASS_CONFIG) != null, // issue 27
                config.getBoolean(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG),
                config.getInt(ProducerConfig.BATCH_SIZE_CONFIG));
        try {
            ProducerMetadata standIn = abi.newMetadata(bridge,
                    config.getLong(ProducerConfig.RETRY_BACKOFF_MS_CONFIG),
                    config.getLong(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG),
                    config.getLong(ProducerConfig.METADATA_MAX_AGE_CONFIG),
                    config.getLong(ProducerConfig.METADATA_MAX_IDLE_CONFIG));
            KafkaProducer<K, V> producer = abi.newProducer(config, keySerializer, valueSerializer, standIn);
            bridge.attach(abi.senderOf(producer));
            RouteInstances.join(metadata, bridge);
            bridge.recreations.attach(StaleQueues.of(abi, producer, // issue 27
                    config.getString(ProducerConfig.TRANSACTIONAL_ID_CONFIG) != null));
            bridge.recreations.attach(new LeaderlessPartitions(metadata, leaderlessMode, // issue 39
                    config.getLong(ProducerConfig.MAX_BLOCK_MS_CONFIG),
                    config.getInt(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG), "[Producer clientId=" + clientId + "] "));
            log.info("[Producer clientId={}] KafkaProducer on kmeta ({} instance {}, kafka-clients {}, gives up {} ms "
                            + "before max.block.ms)", clientId, shared ? "shared" : "private",
                    metadata.config().clientId(), abi.version(), giveUpEarlyMs);
            return producer;
        } catch (RuntimeException | Error e) {
            bridge.close();
            throw e;
        }
    }

    /**
     * Kafka's meaning of {@code bootstrap.resolve.timeout.ms} on the route (issue 39): unset or 0 - and always on a
     * kafka-clients without the key (4.0-4.3, whose constructor resolves the names) - {@code new KafkaProducer} fails
     * when no name of {@code bootstrap.servers} resolves, so {@code create} does too, before kmeta starts: a
     * {@link KafkaException} "Failed to construct kafka producer" caused by a {@link ConfigException} whose message is
     * stock's plus kmeta's BOOTSTRAP_DNS diagnosis, which a suppressed {@code KafkaMetadataTimeoutException} carries
     * ({@code Diagnosis.from}). The names resolve through kmeta's resolver (the DNS hook, or the system's). A positive
     * bound on 4.4 waits in the send ({@code ProducerMetadata44}).
     */
    static void failAsStockIfNoBootstrapNameResolves(ProducerConfig config, Object bound, HostResolverHook resolver) {
        long boundMs;
        try {
            boundMs = bound == null ? 0 : Long.parseLong(bound.toString().trim());
        } catch (NumberFormatException e) {
            return; // kmeta's validation names the key
        }
        if (boundMs > 0 && ProducerConfig.configNames().contains(BOOTSTRAP_RESOLVE_TIMEOUT_MS)) {
            return;
        }
        Diagnosis d = KafkaMetadata.unresolvableBootstrap(config.getList(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG),
                resolver != null ? resolver : HostResolverHook.system());
        if (d == null) {
            return;
        }
        ConfigException cause = new ConfigException("No resolvable bootstrap urls given in "
                + ProducerConfig.BOOTSTRAP_SERVERS_CONFIG + " (kmeta: " + d.message() + ")");
        cause.addSuppressed(new KafkaMetadataTimeoutException(d.message(), d));
        throw new KafkaException("Failed to construct kafka producer", cause);
    }

    /**
     * A stock KafkaProducer from the same properties without kmeta's {@code kmeta.*} keys (serializers kept): what
     * {@link #create} returns on a kafka-clients the route does not support. One WARN line per producer; counted.
     */
    private static <K, V> Producer<K, V> stock(Map<String, Object> all, Serializer<K> keySerializer,
                                               Serializer<V> valueSerializer, String why) {
        return stock(all, keySerializer, valueSerializer, why, LoggerFactory.getILoggerFactory(), System.err);
    }

    /**
     * {@link #stock}, saying so in the log - and, when SLF4J has no provider ({@code slf4j-api} alone: SLF4J then
     * drops every line), in one line on {@code err} too, as SLF4J says it has none. The WARN names the producer by the
     * client id KafkaProducer uses, the one it generated ({@code producer-1}) when none was set.
     */
    static <K, V> Producer<K, V> stock(Map<String, Object> all, Serializer<K> keySerializer,
                                       Serializer<V> valueSerializer, String why, ILoggerFactory logging,
                                       PrintStream err) {
        Map<String, Object> producerProps = new HashMap<>();
        all.forEach((k, v) -> {
            if (!k.startsWith(MetadataConfig.KMETA_PREFIX)) {
                producerProps.put(k, v);
            }
        });
        KafkaProducer<K, V> producer = new KafkaProducer<>(producerProps, keySerializer, valueSerializer);
        long n = Fallbacks.add();
        String warning = "[Producer clientId=" + clientIdOf(producer, producerProps) + "] A stock KafkaProducer, not "
                + "on kmeta: " + why + ". Lost: kmeta's shared metadata (this producer sends its own Metadata "
                + "requests) and kmeta's diagnosis of metadata timeouts. Fallbacks so far: " + n + ". "
                + UNSUPPORTED_VERSION + "=" + UNSUPPORTED_FAIL + " refuses instead; docs/kafka-producer.md, Upgrading "
                + "kafka-clients";
        log.warn(warning);
        if (logging instanceof NOPLoggerFactory) {
            err.println("kmeta(W): " + warning);
            err.flush();
        }
        return producer;
    }

    /** The client id a producer uses: the one set, or the one KafkaProducer generated (in its metrics' tags). */
    static String clientIdOf(Producer<?, ?> producer, Map<String, Object> props) {
        Object set = props.get(ProducerConfig.CLIENT_ID_CONFIG);
        if (set != null && !set.toString().isEmpty()) {
            return set.toString();
        }
        for (MetricName metric : producer.metrics().keySet()) {
            String id = metric.tags().get("client-id");
            if (id != null && !id.isEmpty()) {
                return id;
            }
        }
        return "";
    }

    /**
     * The route's counts of {@code metadata}'s instance, indexed by {@code RouteStats.Counter}'s ordinals; null when
     * no producer made by {@code KmetaProducer.create} is open on it.
     */
    public static long[] routeCounts(KafkaMetadata metadata) {
        return RouteInstances.counts(metadata);
    }

    /** How many producers {@link #create} made stock (not on kmeta) because kafka-clients is not supported. */
    public static long fallbacks() {
        return Fallbacks.count();
    }

    private static boolean failIfUnsupported(Map<String, Object> all) {
        Object v = all.get(UNSUPPORTED_VERSION);
        if (v == null) {
            return false;
        }
        String s = v.toString().trim().toLowerCase(Locale.ROOT);
        if (s.equals(UNSUPPORTED_FAIL) || s.equals(UNSUPPORTED_FALLBACK)) {
            return s.equals(UNSUPPORTED_FAIL);
        }
        throw new ConfigException(UNSUPPORTED_VERSION, v, "must be " + UNSUPPORTED_FALLBACK + " or "
                + UNSUPPORTED_FAIL);
    }

    private static KafkaMetadata start(Map<String, Object> kmetaProps, boolean shared, HostResolverHook resolver,
                                       Ticker ticker) {
        try {
            if (shared) {
                return KafkaMetadata.shared(kmetaProps);
            }
            KafkaMetadata.Builder b = KafkaMetadata.builder(kmetaProps);
            if (resolver != null) {
                b.hostResolver(resolver);
            }
            if (ticker != null) {
                b.ticker(ticker);
            }
            return b.build();
        } catch (dev.kmeta.metadata.ConfigException e) {
            ConfigException kafka = new ConfigException(e.getMessage());
            kafka.initCause(e);
            throw kafka;
        }
    }

    private static Object withOurInterceptor(Object given) {
        String ours = DiagnosingInterceptor.class.getName();
        List<Object> classes = new ArrayList<>();
        if (given instanceof Collection) {
            classes.addAll((Collection<?>) given);
        } else if (given instanceof String) {
            for (String s : ((String) given).split(",")) {
                if (!s.isBlank()) {
                    classes.add(s.trim());
                }
            }
        } else if (given != null) {
            classes.add(given);
        }
        classes.add(ours);
        return classes;
    }

    private static Boolean bool(Map<String, Object> all, String key) {
        Object v = all.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Boolean) {
            return (Boolean) v;
        }
        String s = v.toString().trim().toLowerCase(Locale.ROOT);
        if (s.equals("true") || s.equals("false")) {
            return Boolean.valueOf(s);
        }
        throw new ConfigException(key, v, "must be true or false");
    }

    private static long giveUpEarlyMs(Map<String, Object> all) {
        Object v = all.get(GIVE_UP_EARLY_MS);
        if (v == null) {
            return DEFAULT_GIVE_UP_EARLY_MS;
        }
        long ms;
        try {
            ms = v instanceof Number ? ((Number) v).longValue() : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(GIVE_UP_EARLY_MS, v, "must be a number of ms from 0 to " + MAX_GIVE_UP_EARLY_MS);
        }
        if (ms < 0 || ms > MAX_GIVE_UP_EARLY_MS) {
            throw new ConfigException(GIVE_UP_EARLY_MS, v, "must be from 0 to " + MAX_GIVE_UP_EARLY_MS + " ms");
        }
        return ms;
    }

    /**
     * The bridge of a producer made by {@link #create}, or null for any other producer (tests, diagnostics).
     */
    public static ProducerBridge bridgeOf(Producer<?, ?> producer) {
        if (!(producer instanceof KafkaProducer) || KafkaClientsAbi.unsupportedReason() != null) {
            return null;
        }
        Object metadata = KafkaClientsAbi.current().metadataOf((KafkaProducer<?, ?>) producer);
        return metadata instanceof StandIn ? ((StandIn) metadata).bridge() : null;
    }
}
