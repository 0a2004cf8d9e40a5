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
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Properties;

/**
 * The kafka-clients on the class path, and the one thin {@code ProducerMetadata} subclass that fits its ABI, chosen
 * at run time from kafka-clients' own version file: {@code ProducerMetadata40} for 4.0.x-4.3.x (its constructor takes
 * the old {@code LogContext} and a {@code Time}; {@code awaitUpdate(int, long)}; compiled against 4.3.1 from
 * {@code src/main/java-kafka-4.0}), {@link ProducerMetadata44} for 4.4.x. Any other version (3.x, a future 4.5) fails
 * at creation with a message naming the version found and the range; so does a version whose classes do not have
 * the shape its thin class overrides (each of the thin class's methods must override one of {@code ProducerMetadata}).
 *
 * <p>Also builds the {@link KafkaProducer} through its package-private constructor
 * {@code (ProducerConfig, Serializer, Serializer, ProducerMetadata, KafkaClient, ProducerInterceptors, ApiVersions,
 * Time)} (the same in 4.0-4.4). Immutable and thread-safe.
 */
public final class KafkaClientsAbi {
    /** The kafka-clients versions this module runs on. */
    public static final String SUPPORTED = "kafka-clients 4.0.x to 4.4.x";
    /** The stand-in for 4.0.x-4.3.x; not on the main compile's source path, so named as a string. */
    static final String PRODUCER_METADATA_40 = "dev.kmeta.producer.internal.ProducerMetadata40";

    private final String version;
    private final Constructor<? extends ProducerMetadata> metadataConstructor;
    private final Constructor<?> producerConstructor;

    private KafkaClientsAbi(String version, Constructor<? extends ProducerMetadata> metadataConstructor,
                            Constructor<?> producerConstructor) {
        this.version = version;
        this.metadataConstructor = metadataConstructor;
        this.producerConstructor = producerConstructor;
    }

    /** The ABI found once, or why there is none (kept, so that every creation fails alike, not only the first). */
    private static final class Holder {
        static final Object CURRENT = selectOrRefusal(kafkaClientsVersion());

        private static Object selectOrRefusal(String version) {
            try {
                return select(version);
            } catch (KafkaException e) {
                return e;
            }
        }
    }

    /**
     * The ABI of the kafka-clients on the class path (checked once).
     *
     * @throws KafkaException on every call, if that kafka-clients is not supported (the message names it)
     */
    public static KafkaClientsAbi current() {
        Object current = Holder.CURRENT;
        if (current instanceof KafkaClientsAbi) {
            return (KafkaClientsAbi) current;
        }
        KafkaException refusal = (KafkaException) current;
        throw new KafkaException(refusal.getMessage(), refusal.getCause());
    }

    /** The version of kafka-clients found, as kafka-clients records it ({@code kafka/kafka-version.properties}). */
    public String version() {
        return version;
    }

    /** The name of the thin {@code ProducerMetadata} subclass chosen for this version. */
    public String standInClass() {
        return metadataConstructor.getDeclaringClass().getName();
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
            requireOverrides(type);
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

    /**
     * Every public method the thin class declares (but {@link StandIn}'s) overrides one of kafka-clients'
     * {@code ProducerMetadata}: a method that overrides nothing on this kafka-clients would never be called, and
     * the producer would fall back to the superclass's empty metadata.
     *
     * @throws NoSuchMethodException naming the first method that overrides nothing
     */
    private static void requireOverrides(Class<? extends ProducerMetadata> type) throws NoSuchMethodException {
        for (Method m : type.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()
                    && !m.getName().equals("bridge")) {
                ProducerMetadata.class.getMethod(m.getName(), m.getParameterTypes());
            }
        }
    }

    /** The thin class for a version ({@code major.minor[.patch][-suffix]}), or null when none fits. */
    static String thinClassFor(String version) {
        String[] parts = version == null ? new String[0] : version.split("[.-]");
        if (parts.length < 2 || !parts[0].equals("4")) {
            return null;
        }
        switch (parts[1]) {
            case "0":
            case "1":
            case "2":
            case "3":
                return PRODUCER_METADATA_40;
            case "4":
                return ProducerMetadata44.class.getName();
            default:
                return null;
        }
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
