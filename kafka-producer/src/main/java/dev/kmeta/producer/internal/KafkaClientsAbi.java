package dev.kmeta.producer.internal;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.internals.ProducerInterceptors;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Time;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Properties;

/**
 * The kafka-clients on the class path, and the one thin {@code ProducerMetadata} subclass that fits its ABI, chosen
 * at run time: {@value #SUPPORTED} today ({@link ProducerMetadata44}). A version outside that range fails at creation
 * with a message naming the version found and the range. A second ABI (4.0-4.3: {@code awaitUpdate(int, long)},
 * {@code Time} in the constructor, the old {@code LogContext}) is one more entry in {@link #thinClassFor} and one more
 * class compiled against that version.
 *
 * <p>Also builds the {@link KafkaProducer} through its package-private constructor
 * {@code (ProducerConfig, Serializer, Serializer, ProducerMetadata, KafkaClient, ProducerInterceptors, ApiVersions,
 * Time)} (the same in 4.0-4.4). Immutable and thread-safe.
 */
public final class KafkaClientsAbi {
    /** The kafka-clients versions this module runs on. */
    public static final String SUPPORTED = "kafka-clients 4.4.x";

    private final String version;
    private final Constructor<? extends ProducerMetadata> metadataConstructor;
    private final Constructor<?> producerConstructor;

    private KafkaClientsAbi(String version, Constructor<? extends ProducerMetadata> metadataConstructor,
                            Constructor<?> producerConstructor) {
        this.version = version;
        this.metadataConstructor = metadataConstructor;
        this.producerConstructor = producerConstructor;
    }

    private static final class Holder {
        static final KafkaClientsAbi CURRENT = select(kafkaClientsVersion());
    }

    /** The ABI of the kafka-clients on the class path (checked once). */
    public static KafkaClientsAbi current() {
        return Holder.CURRENT;
    }

    /** The version of kafka-clients found, as kafka-clients records it ({@code kafka/kafka-version.properties}). */
    public String version() {
        return version;
    }

    /**
     * The ABI for a kafka-clients {@code version}.
     *
     * @throws KafkaException if the version is not supported, or the classes found do not have the expected shape
     */
    public static KafkaClientsAbi select(String version) {
        String thin = thinClassFor(version);
        if (thin == null) {
            throw unsupported(version, null);
        }
        try {
            Class<? extends ProducerMetadata> type = Class.forName(thin, true, KafkaClientsAbi.class.getClassLoader())
                    .asSubclass(ProducerMetadata.class);
            Constructor<? extends ProducerMetadata> metadata = type.getConstructor(ProducerBridge.class,
                    long.class, long.class, long.class, long.class);
            Constructor<?> producer = KafkaProducer.class.getDeclaredConstructor(ProducerConfig.class,
                    Serializer.class, Serializer.class, ProducerMetadata.class, KafkaClient.class,
                    ProducerInterceptors.class, ApiVersions.class, Time.class);
            producer.setAccessible(true);
            return new KafkaClientsAbi(version, metadata, producer);
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            throw unsupported(version, e);
        }
    }

    /** The thin class for a version, or null when none fits. */
    static String thinClassFor(String version) {
        String[] parts = version == null ? new String[0] : version.split("[.-]");
        if (parts.length >= 2 && parts[0].equals("4") && parts[1].equals("4")) {
            return ProducerMetadata44.class.getName();
        }
        return null;
    }

    private static KafkaException unsupported(String version, Throwable cause) {
        String found = version == null ? "an unknown version" : version;
        String detail = cause == null ? "" : " (its classes do not have the shape this module was built for: "
                + cause + ")";
        return new KafkaException("kmeta's KafkaProducer route supports " + SUPPORTED + "; found kafka-clients "
                + found + " on the class path" + detail + ". Use a supported kafka-clients, or kmeta's "
                + "KafkaMetadata directly (which does not depend on KafkaProducer's internals)", cause);
    }

    /** kafka-clients' own record of its version, or null. */
    static String kafkaClientsVersion() {
        try (InputStream in = ProducerMetadata.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) {
                return null;
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            return null;
        }
    }

    /** A stand-in for {@code ProducerMetadata} answering through {@code bridge}. */
    ProducerMetadata newMetadata(ProducerBridge bridge, long refreshBackoffMs, long refreshBackoffMaxMs,
                                 long metadataExpireMs, long metadataIdleMs) {
        try {
            return metadataConstructor.newInstance(bridge, refreshBackoffMs, refreshBackoffMaxMs, metadataExpireMs,
                    metadataIdleMs);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new KafkaException("Could not make kmeta's ProducerMetadata", e);
        }
    }

    /** A KafkaProducer over {@code metadata}, with its own network client (it sends no Metadata request). */
    @SuppressWarnings("unchecked")
    <K, V> KafkaProducer<K, V> newProducer(ProducerConfig config, Serializer<K> keySerializer,
                                           Serializer<V> valueSerializer, ProducerMetadata metadata) {
        try {
            return (KafkaProducer<K, V>) producerConstructor.newInstance(config, keySerializer, valueSerializer,
                    metadata, null, null, new ApiVersions(), Time.SYSTEM);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new KafkaException("Could not construct the KafkaProducer", e);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException) {
            return (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        return new KafkaException(t);
    }
}
