package dev.kmeta.spring;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.sender.KafkaMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.springframework.beans.BeansException;
import org.springframework.context.ApplicationContext;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.core.ProducerPostProcessor;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Spring Kafka's {@link DefaultKafkaProducerFactory} with kmeta inside: every raw producer it makes - the shared one,
 * the transactional ones of each transaction-id prefix, the per-thread ones - is Apache Kafka's own
 * {@code KafkaProducer} made by {@link KmetaProducer#create(Map, Serializer, Serializer)}, so that every producer of
 * every factory for the same cluster and security identity shares one kmeta instance, and a send that times out on
 * metadata says why ({@code dev.kmeta.metadata.Diagnosis.from}). Everything else is Spring's factory, unchanged:
 * the producer cache and {@code CloseSafeProducer} wrapping, transaction-id prefixes and suffix strategies,
 * {@link ProducerPostProcessor}s (applied to each raw producer, in order), listeners, {@code reset()}, max age, the
 * physical close timeout, and the context class loader a raw producer is created under (the application context's,
 * as Spring does for SASL login modules in Boot fat jars).
 *
 * <pre>{@code
 * import org.springframework.kafka.core.KafkaTemplate;
 *
 * Map<String, Object> producerConfigs = ...;   // your producer config
 * ProducerFactory<String, String> factory = new KmetaProducerFactory<>(producerConfigs);
 * KafkaTemplate<String, String> template = new KafkaTemplate<>(factory);
 * }</pre>
 *
 * <p>With Spring Boot, {@code KmetaAutoConfiguration} makes Boot's producer factory one of these; see docs/spring.md.
 * {@code kmeta.*} keys of the configuration go to kmeta (docs/configuration.md), the rest to the producer.
 *
 * <p>Thread-safe, as Spring's factory is.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class KmetaProducerFactory<K, V> extends DefaultKafkaProducerFactory<K, V> {
    private final KmetaInstances instances;
    private volatile ApplicationContext applicationContext;

    /** A factory for these producer configs; serializers named by {@code key.serializer} and {@code value.serializer}. */
    public KmetaProducerFactory(Map<String, Object> configs) {
        this(configs, () -> null, () -> null, true);
    }

    /** A factory with these serializer instances (either may be null: then named by its config key). */
    public KmetaProducerFactory(Map<String, Object> configs, Serializer<K> keySerializer,
                                Serializer<V> valueSerializer) {
        this(configs, () -> keySerializer, () -> valueSerializer, true);
    }

    /**
     * A factory with serializer suppliers and Spring's {@code configureSerializers} flag (whether the factory calls
     * {@code configure} on the serializers), as {@link DefaultKafkaProducerFactory}'s constructor of that shape.
     */
    public KmetaProducerFactory(Map<String, Object> configs, Supplier<Serializer<K>> keySerializerSupplier,
                                Supplier<Serializer<V>> valueSerializerSupplier, boolean configureSerializers) {
        this(configs, keySerializerSupplier, valueSerializerSupplier, configureSerializers, new KmetaInstances());
    }

    private KmetaProducerFactory(Map<String, Object> configs, Supplier<Serializer<K>> keySerializerSupplier,
                                 Supplier<Serializer<V>> valueSerializerSupplier, boolean configureSerializers,
                                 KmetaInstances instances) {
        super(configs, keySerializerSupplier, valueSerializerSupplier, configureSerializers);
        this.instances = instances;
    }

    @Override
    public void setApplicationContext(ApplicationContext applicationContext) throws BeansException {
        this.applicationContext = applicationContext;
        super.setApplicationContext(applicationContext);
    }

    /**
     * Spring's raw producer, made by kmeta: {@link DefaultKafkaProducerFactory#createRawProducer}'s steps (the
     * context class loader switched to the application context's, the serializers from the suppliers, the post
     * processors applied in order) with {@link KmetaProducer#create(Map, Serializer, Serializer)} in place of
     * {@code new KafkaProducer<>(...)}. Every path of the factory (the shared producer, transactional producers,
     * producers per thread) makes its raw producers here.
     */
    @Override
    protected Producer<K, V> createRawProducer(Map<String, Object> rawConfigs) {
        Thread thread = Thread.currentThread();
        ClassLoader original = thread.getContextClassLoader();
        ApplicationContext context = this.applicationContext;
        ClassLoader target = context != null && context.getClassLoader() != null ? context.getClassLoader()
                : getClass().getClassLoader();
        try {
            if (target != original) {
                thread.setContextClassLoader(target);
            }
            // getKeySerializer(): the supplier's serializer, configured when configureSerializers (Spring's own)
            Producer<K, V> raw = KmetaProducer.create(rawConfigs, getKeySerializer(), getValueSerializer());
            KmetaProducer.metadataOf(raw).ifPresent(instances::add);
            Producer<K, V> producer = raw;
            for (ProducerPostProcessor<K, V> pp : getPostProcessors()) {
                producer = pp.apply(producer);
            }
            return producer;
        } finally {
            if (target != original) {
                thread.setContextClassLoader(original);
            }
        }
    }

    /**
     * A kmeta-backed copy, as {@link DefaultKafkaProducerFactory#copyWithConfigurationOverride} makes a stock one
     * (what {@code new KafkaTemplate<>(factory, overrides)} uses): the configs with the overrides, the transaction-id
     * prefix kept unless the overrides name {@code transactional.id}, the serializer suppliers, the physical close
     * timeout, producer-per-thread, post-processors and listeners. Its kmeta instances count as this factory's.
     */
    @Override
    public ProducerFactory<K, V> copyWithConfigurationOverride(Map<String, Object> overrideProperties) {
        Map<String, Object> configs = new HashMap<>(getConfigurationProperties());
        if (overrideProperties != null) {
            configs.putAll(overrideProperties);
        }
        String txIdPrefix = getTransactionIdPrefix();
        if (txIdPrefix != null && !txIdPrefix.isEmpty() && !configs.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
            configs.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txIdPrefix);
        }
        KmetaProducerFactory<K, V> copy = new KmetaProducerFactory<>(configs, getKeySerializerSupplier(),
                getValueSerializerSupplier(), isConfigureSerializers(), instances);
        copy.setPhysicalCloseTimeout((int) getPhysicalCloseTimeout().getSeconds());
        copy.setProducerPerThread(isProducerPerThread());
        getPostProcessors().forEach(copy::addPostProcessor);
        getListeners().forEach(copy::addListener);
        ApplicationContext context = this.applicationContext;
        if (context != null) {
            copy.setApplicationContext(context);
        }
        return copy;
    }

    /**
     * The kmeta instances under this factory's open producers (and its copies'), one handle per instance: with the
     * default {@code kmeta.producer.shared.metadata=true}, one per cluster and security identity. The handles are the
     * producers' own: read them, do not close them.
     */
    public List<KafkaMetadata> kmetaInstances() {
        return instances.open();
    }

    /** The tracker of this factory's kmeta instances (the auto-configuration's metrics and health read it). */
    KmetaInstances instances() {
        return instances;
    }
}
