package dev.kmeta.producer;

import dev.kmeta.metadata.Ticker;
import dev.kmeta.producer.internal.KmetaProducers;
import dev.kmeta.producer.internal.ProducerBridge;
import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.sender.KafkaMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.Serializer;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * Apache Kafka's own {@link org.apache.kafka.clients.producer.KafkaProducer}, with kmeta as its metadata.
 *
 * <pre>{@code
 * import org.apache.kafka.clients.producer.ProducerRecord;
 *
 * Properties props = ...;   // your producer config, unchanged
 * try (Producer<String, String> producer = KmetaProducer.create(props)) {
 *     producer.send(new ProducerRecord<>("orders", "key", "value"));
 * }
 * }</pre>
 *
 * <p>What it returns <em>is</em> a {@code KafkaProducer} (batching, idempotence, transactions, compression and
 * delivery are kafka-clients' own) whose {@code ProducerMetadata} is a kmeta stand-in: every producer created for the
 * same cluster and security identity shares one kmeta instance ({@code KafkaMetadata.shared}), so metadata traffic
 * does not grow with the number of producers, and the producer's own network client sends no Metadata request. A
 * send waiting for metadata waits with kmeta's targeted wait and, when it times out, fails with kmeta's
 * {@code KafkaMetadataTimeoutException} (a Kafka {@code TimeoutException} naming the cause) about
 * {@value #DEFAULT_GIVE_UP_EARLY_MS} ms before {@code max.block.ms}. See docs/kafka-producer.md.
 *
 * <p>Keys of its own, removed before {@code ProducerConfig} sees them:
 * {@value #SHARED_METADATA} (default true; false gives the producer a private kmeta instance),
 * {@value #GIVE_UP_EARLY_MS} (0-1000, default {@value #DEFAULT_GIVE_UP_EARLY_MS}), {@value #UNSUPPORTED_VERSION} and
 * {@value #LEADERLESS_PARTITION} ({@code hold} or {@code fail}). Other {@code kmeta.*} keys configure kmeta
 * (docs/configuration.md). Kafka's own keys keep Kafka's meaning, {@code bootstrap.resolve.timeout.ms} included
 * (docs/kafka-producer.md).
 *
 * <p>Supports {@value #SUPPORTED_KAFKA_CLIENTS} (the stand-in is chosen by what the classes on the class path offer, so
 * a newer kafka-clients of the same shape works too, with a WARN). On a kafka-clients it cannot run on, {@code create}
 * returns a stock {@code KafkaProducer} made from the same properties (without the {@code kmeta.*} keys), logs one WARN
 * naming the version and what is lost (shared metadata, diagnosis) and counts it ({@link #fallbacks()}); with
 * {@value #UNSUPPORTED_VERSION}={@code fail} it throws instead. See docs/kafka-producer.md, "Upgrading kafka-clients".
 *
 * <p>Thread-safe: the factories may be called from any thread; the producer is as thread-safe as any KafkaProducer.
 */
public final class KmetaProducer {
    /** Whether producers share one kmeta instance per cluster and security identity (default true). */
    public static final String SHARED_METADATA = KmetaProducers.SHARED_METADATA;
    /** How many ms before {@code max.block.ms} a send waiting for metadata gives up with kmeta's diagnosis. */
    public static final String GIVE_UP_EARLY_MS = KmetaProducers.GIVE_UP_EARLY_MS;
    /** The default of {@link #GIVE_UP_EARLY_MS}. */
    public static final long DEFAULT_GIVE_UP_EARLY_MS = KmetaProducers.DEFAULT_GIVE_UP_EARLY_MS;
    /**
     * What {@code create} does on a kafka-clients the route does not support: {@code fallback} (default: a stock
     * KafkaProducer, a WARN, {@link #fallbacks()} counts it) or {@code fail} (a {@code KafkaException} naming the
     * version). Any other value is a {@code ConfigException} naming this key.
     */
    public static final String UNSUPPORTED_VERSION = KmetaProducers.UNSUPPORTED_VERSION;
    /**
     * What happens to records for a partition without a leader (issue 39): {@code hold} (default, kafka-clients'
     * semantics: queued until {@code delivery.timeout.ms}, named by one WARN per partition within {@code max.block.ms}
     * and listed by {@code metadataOf(producer).leaderlessPartitions()}) or {@code fail} (when every replica is on a
     * broker the cluster reports offline, the records fail at once with kmeta's LEADER_NOT_AVAILABLE diagnosis, a
     * {@code TimeoutException}; a partition mid-election is still held). Any other value is a {@code ConfigException}.
     */
    public static final String LEADERLESS_PARTITION = KmetaProducers.LEADERLESS_PARTITION;
    /** The kafka-clients versions the route supports and is tested with. */
    public static final String SUPPORTED_KAFKA_CLIENTS = KafkaClientsAbi.SUPPORTED;

    private KmetaProducer() {
    }

    /**
     * A KafkaProducer on kmeta, its serializers named by {@code key.serializer} and {@code value.serializer}.
     *
     * @throws org.apache.kafka.common.KafkaException          as {@code new KafkaProducer(props)} would, or when the
     *                                                         kafka-clients found is not supported
     * @throws org.apache.kafka.common.config.ConfigException if a value is bad (the message names the key)
     */
    public static <K, V> Producer<K, V> create(Map<String, ?> props) {
        return builder(props).build(null, null);
    }

    /** {@link #create(Map)} from {@link Properties} (their defaults included). */
    public static <K, V> Producer<K, V> create(Properties props) {
        return builder(props).build(null, null);
    }

    /** {@link #create(Map)} with serializer instances, as {@code new KafkaProducer(props, key, value)}. */
    public static <K, V> Producer<K, V> create(Map<String, ?> props, Serializer<K> keySerializer,
                                               Serializer<V> valueSerializer) {
        return builder(props).build(keySerializer, valueSerializer);
    }

    /** {@link #create(Map, Serializer, Serializer)} from {@link Properties}. */
    public static <K, V> Producer<K, V> create(Properties props, Serializer<K> keySerializer,
                                               Serializer<V> valueSerializer) {
        return builder(props).build(keySerializer, valueSerializer);
    }

    /**
     * The kmeta instance under a producer made here, as that producer's own handle (for health checks and metrics:
     * {@code state()}, {@code metadataAgeMs()}, {@code stats()}, {@code diagnose(...)}); empty for any other producer
     * (a stock KafkaProducer, a wrapper around one). Do not close the handle: the producer does, and it reads
     * {@code CLOSED} from then on.
     */
    public static Optional<KafkaMetadata> metadataOf(Producer<?, ?> producer) {
        ProducerBridge bridge = producer == null ? null : KmetaProducers.bridgeOf(producer);
        return bridge == null ? Optional.empty() : Optional.of(bridge.metadata());
    }

    /**
     * What the KafkaProducer route did for the producers of {@code metadata}'s instance (the handle of any of them,
     * from {@link #metadataOf}): views built, sends held and how each hold ended, first requests steered, updates asked
     * for, re-created topics seen... ({@link RouteStats}). {@link RouteStats#empty()} when no producer made here is
     * open on that instance.
     */
    public static RouteStats routeStats(KafkaMetadata metadata) {
        long[] counts = KmetaProducers.routeCounts(Objects.requireNonNull(metadata, "metadata"));
        if (counts == null) {
            long[] none = new long[RouteStats.Counter.values().length];
            none[RouteStats.Counter.FALLBACKS.ordinal()] = KmetaProducers.fallbacks();
            return RouteStats.of(none);
        }
        return RouteStats.of(counts);
    }

    /**
     * How many producers {@code create} returned as stock KafkaProducers (not on kmeta) in this JVM, because the
     * kafka-clients on the class path is not supported. 0 on a supported kafka-clients.
     */
    public static long fallbacks() {
        return KmetaProducers.fallbacks();
    }

    /** A builder, for options beyond properties (a DNS hook). */
    public static Builder builder(Map<String, ?> props) {
        return new Builder(new HashMap<>(Objects.requireNonNull(props, "props")));
    }

    /** {@link #builder(Map)} from {@link Properties} (their defaults included). */
    public static Builder builder(Properties props) {
        Objects.requireNonNull(props, "props");
        Map<String, Object> map = new HashMap<>();
        for (String name : props.stringPropertyNames()) {
            map.put(name, props.getProperty(name));
        }
        props.forEach((k, v) -> map.put(String.valueOf(k), v));
        return new Builder(map);
    }

    /**
     * Builds a kmeta-backed KafkaProducer with options beyond properties. Not thread-safe: one thread builds; the
     * producer built is as thread-safe as any KafkaProducer.
     */
    public static final class Builder {
        private final Map<String, Object> props;
        private HostResolverHook resolver;
        private Ticker ticker;

        private Builder(Map<String, Object> props) {
            this.props = props;
        }

        /**
         * Resolves broker host names for kmeta's metadata connections with {@code hook} (tests, custom discovery).
         * The producer then gets a private kmeta instance (a shared one is made by its first user, with the system
         * resolver). The producer's own connections to the leaders use the system resolver.
         */
        public Builder hostResolver(HostResolverHook hook) {
            this.resolver = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /**
         * Runs kmeta's side of the producer on {@code ticker} instead of the system's clock: the kmeta instance
         * ({@link KafkaMetadata.Builder#ticker}) and the route's holds, re-checks and give-up margin read and park on
         * it. For tests on fake time; the producer then gets a private kmeta instance. KafkaProducer's own
         * clock (its record timestamps, linger, delivery timeout, its network thread) stays the system's.
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** The producer, its serializers named by {@code key.serializer} and {@code value.serializer}. */
        public <K, V> Producer<K, V> build() {
            return build(null, null);
        }

        /** The producer, with these serializers (either may be null: then named by its config key). */
        public <K, V> Producer<K, V> build(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
            return KmetaProducers.create(props, keySerializer, valueSerializer, resolver, ticker);
        }
    }
}
