package dev.kmeta.producer.internal.abi;

import dev.kmeta.producer.internal.ProducerBridge;
import dev.kmeta.sender.internal.KafkaClientsCompat;
import dev.kmeta.sender.internal.KafkaClientsJars;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.internals.ProducerInterceptors;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Time;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * The one place of the KafkaProducer route that knows kafka-clients versions: which {@code ProducerMetadata} stand-in
 * fits the kafka-clients on the class path, and every reflective call the route makes into it. The stand-in is chosen
 * by <em>shape</em>, not by version number: the first {@link Shape} whose kafka-clients members all resolve, and
 * whose stand-in's every public method overrides one of {@code ProducerMetadata}'s, wins:
 * <ul>
 *   <li>{@link dev.kmeta.producer.internal.ProducerMetadata44}: {@code ProducerMetadata(long x4,
 *       utils.internals.LogContext, ClusterResourceListeners)}, {@code awaitUpdate(int, Timer)},
 *       {@code add(Collection, long)} (4.4);</li>
 *   <li>{@code ProducerMetadata40} (compiled against 4.3.1 from {@code src/main/java-kafka-4.0}):
 *       {@code ProducerMetadata(long x4, utils.LogContext, ClusterResourceListeners, Time)},
 *       {@code awaitUpdate(int, long)} (4.0-4.3).</li>
 * </ul>
 * Besides its shape, every member of a non-public kafka-clients class that the route's code links to
 * ({@link #requiredMembers()}: {@code MetadataSnapshot}'s constructor, {@code Errors}, {@code Utils.getHost}...) must
 * resolve, and so must {@code KafkaProducer}'s package-private constructor {@code (ProducerConfig, Serializer,
 * Serializer, ProducerMetadata, KafkaClient, ProducerInterceptors, ApiVersions, Time)} and its {@code metadata} field:
 * so a kafka-clients that changed one of them is "unsupported" at creation (and gets a stock producer), never a
 * {@code NoSuchMethodError} in a send. compat-tests' {@code KafkaInternalApiTest} checks that the list is complete.
 * A kafka-clients that kmeta's sender refuses ({@link KafkaClientsCompat#refusal()}: older than
 * {@link KafkaClientsCompat#OLDEST}) is unsupported whatever its shape.
 *
 * <p>Adding a kafka-clients version whose shape is new: a stand-in class and a {@link Shape} here (and, if the sender
 * needs it, {@link KafkaClientsCompat}); the supported range is {@link KafkaClientsCompat#OLDEST} and
 * {@link KafkaClientsCompat#NEWEST}. Immutable and thread-safe.
 */
@SuppressKafkaInternalApiUsage("builds KafkaProducer through its package-private constructor (ProducerMetadata, "
        + "KafkaClient, ProducerInterceptors, ApiVersions, Time): the only way to give it kmeta's metadata")
public final class KafkaClientsAbi {
    /**
     * The clock every KafkaProducer made here runs on (the system's): the bridge reads the producer's time (its
     * {@code nowMs}, its metadata-age metric) from this same object, kmeta's rules from the instance's Ticker.
     */
    private static final Time PRODUCER_TIME = Time.SYSTEM;

    /** Now on the producers' clock ({@link #PRODUCER_TIME}), ms: the clock of their {@code nowMs} arguments. */
    public static long producerNowMs() {
        return PRODUCER_TIME.milliseconds();
    }

    /** The kafka-clients versions this module supports and is tested with, as messages say it. */
    public static final String SUPPORTED = "kafka-clients " + KafkaClientsCompat.OLDEST + ".x to "
            + KafkaClientsCompat.NEWEST + ".x";
    /** The stand-in for 4.0.x-4.3.x; not on the main compile's source path, so named as a string. */
    static final String PRODUCER_METADATA_40 = "dev.kmeta.producer.internal.ProducerMetadata40";
    private static final String PRODUCER_METADATA = "org/apache/kafka/clients/producer/internals/ProducerMetadata";

    /**
     * The kafka-clients members (of classes that are not {@code @InterfaceAudience.Public}) the route's code outside
     * the stand-ins links to, as {@code owner#name descriptor} (JVM spelling; a field's descriptor after a colon).
     */
    private static final List<String> COMMON = List.of(
            "org/apache/kafka/clients/ApiVersions#<init>()V",
            "org/apache/kafka/clients/Metadata$LeaderIdAndEpoch#epoch:Ljava/util/Optional;",
            "org/apache/kafka/clients/Metadata$LeaderIdAndEpoch#leaderId:Ljava/util/Optional;",
            "org/apache/kafka/clients/MetadataSnapshot#<init>(Ljava/lang/String;Ljava/util/Map;Ljava/util/Collection;"
                    + "Ljava/util/Set;Ljava/util/Set;Ljava/util/Set;Lorg/apache/kafka/common/Node;Ljava/util/Map;"
                    + "Lorg/apache/kafka/common/Cluster;)V",
            "org/apache/kafka/common/internals/ClusterResourceListeners#<init>()V",
            "org/apache/kafka/common/protocol/Errors#LEADER_NOT_AVAILABLE:Lorg/apache/kafka/common/protocol/Errors;",
            "org/apache/kafka/common/protocol/Errors#TOPIC_AUTHORIZATION_FAILED:Lorg/apache/kafka/common/protocol/Errors;",
            "org/apache/kafka/common/protocol/Errors#UNKNOWN_TOPIC_OR_PARTITION:Lorg/apache/kafka/common/protocol/Errors;",
            "org/apache/kafka/common/protocol/Errors#exception()Lorg/apache/kafka/common/errors/ApiException;",
            "org/apache/kafka/common/protocol/Errors#forException(Ljava/lang/Throwable;)"
                    + "Lorg/apache/kafka/common/protocol/Errors;",
            "org/apache/kafka/common/utils/Utils#getHost(Ljava/lang/String;)Ljava/lang/String;",
            "org/apache/kafka/common/utils/Utils#getPort(Ljava/lang/String;)Ljava/lang/Integer;",
            "org/apache/kafka/common/utils/Time#SYSTEM:Lorg/apache/kafka/common/utils/Time;",
            "org/apache/kafka/common/utils/Time#milliseconds()J",
            // StaleQueues (issue 27): failing a re-created topic's vanished partitions' queues
            "org/apache/kafka/clients/producer/internals/RecordAccumulator#getDeque(Lorg/apache/kafka/common/"
                    + "TopicPartition;)Ljava/util/Deque;",
            "org/apache/kafka/clients/producer/internals/RecordAccumulator#deallocate(Lorg/apache/kafka/clients/"
                    + "producer/internals/ProducerBatch;)V",
            "org/apache/kafka/clients/producer/internals/ProducerBatch#abortRecordAppends()V",
            "org/apache/kafka/clients/producer/internals/ProducerBatch#abort(Ljava/lang/RuntimeException;)V",
            "org/apache/kafka/common/protocol/Errors#UNKNOWN_TOPIC_ID:Lorg/apache/kafka/common/protocol/Errors;",
            // ProducerBridge: the producer's network thread waits for kmeta's first answer while its Sender runs
            "org/apache/kafka/clients/producer/internals/Sender#isRunning()Z",
            // ProducerBridge: kmeta's answer wakes the producer's network thread when it waits for one
            "org/apache/kafka/clients/producer/internals/Sender#wakeup()V");

    /** The stand-ins, newest first: the first whose members all resolve is used. */
    private static final List<Shape> SHAPES = List.of(
            new Shape("dev.kmeta.producer.internal.ProducerMetadata44", List.of(
                    PRODUCER_METADATA + "#<init>(JJJJLorg/apache/kafka/common/utils/internals/LogContext;"
                            + "Lorg/apache/kafka/common/internals/ClusterResourceListeners;)V",
                    PRODUCER_METADATA + "#awaitUpdate(ILorg/apache/kafka/common/utils/Timer;)V",
                    PRODUCER_METADATA + "#add(Ljava/util/Collection;J)Ljava/util/OptionalInt;",
                    "org/apache/kafka/common/utils/internals/LogContext#<init>(Ljava/lang/String;)V",
                    "org/apache/kafka/common/utils/Timer#remainingMs()J")),
            new Shape(PRODUCER_METADATA_40, List.of(
                    PRODUCER_METADATA + "#<init>(JJJJLorg/apache/kafka/common/utils/LogContext;"
                            + "Lorg/apache/kafka/common/internals/ClusterResourceListeners;"
                            + "Lorg/apache/kafka/common/utils/Time;)V",
                    PRODUCER_METADATA + "#awaitUpdate(IJ)V",
                    "org/apache/kafka/common/utils/LogContext#<init>(Ljava/lang/String;)V")));

    /** A stand-in and the kafka-clients members it links to (its super constructor and what tells the ABI apart). */
    private record Shape(String standIn, List<String> members) {
    }

    /**
     * A KafkaProducer's network thread, whether its Sender still runs, and how to wake it, as {@link #senderOf}
     * reads them.
     *
     * @param thread  the producer's network thread
     * @param running false once the producer's {@code close()} began
     * @param wakeup  wakes the producer's network thread from its selector ({@code Sender.wakeup()}); any thread
     */
    public record SenderRef(Thread thread, java.util.function.BooleanSupplier running, Runnable wakeup) {
    }

    private final String version;
    private final Constructor<? extends ProducerMetadata> metadataConstructor;
    private final Constructor<?> producerConstructor;
    private final Field producerMetadata;

    private KafkaClientsAbi(String version, Constructor<? extends ProducerMetadata> metadataConstructor,
                            Constructor<?> producerConstructor, Field producerMetadata) {
        this.version = version;
        this.metadataConstructor = metadataConstructor;
        this.producerConstructor = producerConstructor;
        this.producerMetadata = producerMetadata;
    }

    /** The ABI found once, or why there is none (kept, so that every creation fails alike, not only the first). */
    private static final class Holder {
        static final Object CURRENT = selectOrRefusal();

        private static Object selectOrRefusal() {
            String version = kafkaClientsVersion();
            try {
                return select(version, KafkaClientsCompat.refusal(), ProducerMetadata.class);
            } catch (KafkaException e) {
                return e;
            } catch (RuntimeException | LinkageError e) {
                return unsupported(version, e.toString(), e);
            }
        }
    }

    /**
     * The ABI of the kafka-clients on the class path (checked once).
     *
     * @throws KafkaException on every call, if that kafka-clients is not supported (the message names it and why)
     */
    public static KafkaClientsAbi current() {
        Object current = Holder.CURRENT;
        if (current instanceof KafkaClientsAbi) {
            return (KafkaClientsAbi) current;
        }
        KafkaException refusal = (KafkaException) current;
        throw new KafkaException(refusal.getMessage(), refusal.getCause());
    }

    /** Why the kafka-clients on the class path is not supported (the message {@link #current()} throws), or null. */
    public static String unsupportedReason() {
        Object current = Holder.CURRENT;
        return current instanceof KafkaException ? ((KafkaException) current).getMessage() : null;
    }

    /** The version of kafka-clients found, as kafka-clients records it ({@code kafka/kafka-version.properties}). */
    public String version() {
        return version;
    }

    /** The name of the thin {@code ProducerMetadata} subclass chosen for this kafka-clients. */
    public String standInClass() {
        return metadataConstructor.getDeclaringClass().getName();
    }

    /**
     * The ABI for a kafka-clients whose {@code ProducerMetadata} is {@code producerMetadata} (the real one, or a
     * test's look-alike), chosen by shape.
     *
     * @param version          the version kafka-clients says it is (for messages only), or null
     * @param senderRefusal    why kmeta's sender cannot run on it ({@link KafkaClientsCompat#refusal()}), or null
     * @param producerMetadata the class in the role of kafka-clients' {@code ProducerMetadata}
     * @throws KafkaException if no stand-in fits (the message names the version and what is missing)
     */
    public static KafkaClientsAbi select(String version, String senderRefusal, Class<?> producerMetadata) {
        if (senderRefusal != null) {
            throw unsupported(version, senderRefusal, null);
        }
        ClassLoader loader = producerMetadata.getClassLoader();
        List<String> misses = new ArrayList<>();
        List<String> common = missing(COMMON, producerMetadata, loader);
        Constructor<?> producer = null;
        Field metadataField = null;
        try {
            producer = KafkaProducer.class.getDeclaredConstructor(ProducerConfig.class, Serializer.class,
                    Serializer.class, ProducerMetadata.class, KafkaClient.class, ProducerInterceptors.class,
                    ApiVersions.class, Time.class);
            producer.setAccessible(true);
            metadataField = KafkaProducer.class.getDeclaredField("metadata");
            metadataField.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            common.add("KafkaProducer's (..., ProducerMetadata, KafkaClient, ProducerInterceptors, ApiVersions, Time) "
                    + "constructor and metadata field: " + e);
        }
        if (!common.isEmpty()) {
            throw unsupported(version, "missing " + String.join("; ", common), null);
        }
        for (Shape shape : SHAPES) {
            String simpleName = shape.standIn().substring(shape.standIn().lastIndexOf('.') + 1);
            List<String> missing = missing(shape.members(), producerMetadata, loader);
            if (!missing.isEmpty()) {
                misses.add(simpleName + " needs " + String.join("; ", missing));
                continue;
            }
            try {
                Class<? extends ProducerMetadata> type = Class.forName(shape.standIn(), true,
                        KafkaClientsAbi.class.getClassLoader()).asSubclass(ProducerMetadata.class);
                requireOverrides(type, producerMetadata);
                return new KafkaClientsAbi(version, type.getConstructor(ProducerBridge.class, long.class, long.class,
                        long.class, long.class), producer, metadataField);
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                misses.add(simpleName + ": " + e);
            }
        }
        throw unsupported(version, "its ProducerMetadata has none of the shapes kmeta's stand-ins need: "
                + String.join(" | ", misses), null);
    }

    /**
     * The kafka-clients members the route links to, every shape's included ({@code owner#name descriptor}), for
     * compat-tests' check that the list covers the compiled code.
     */
    public static Set<String> requiredMembers() {
        Set<String> all = new LinkedHashSet<>(COMMON);
        SHAPES.forEach(s -> all.addAll(s.members()));
        return all;
    }

    /** The members that do not resolve, each with why; {@code ProducerMetadata}'s are looked up on the given class. */
    private static List<String> missing(List<String> members, Class<?> producerMetadata, ClassLoader loader) {
        List<String> out = new ArrayList<>();
        for (String member : members) {
            try {
                if (!resolves(member, producerMetadata, loader)) {
                    out.add(readable(member));
                }
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                out.add(readable(member) + " (" + e + ")");
            }
        }
        return out;
    }

    private static boolean resolves(String member, Class<?> producerMetadata, ClassLoader loader)
            throws ReflectiveOperationException {
        int hash = member.indexOf('#');
        String ownerName = member.substring(0, hash);
        Class<?> owner = ownerName.equals(PRODUCER_METADATA) ? producerMetadata
                : Class.forName(ownerName.replace('/', '.'), false, loader);
        String rest = member.substring(hash + 1);
        int colon = rest.indexOf(':');
        if (colon >= 0) {
            String name = rest.substring(0, colon);
            for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (f.getName().equals(name) && f.getType().descriptorString().equals(rest.substring(colon + 1))) {
                        return true;
                    }
                }
            }
            return false;
        }
        int paren = rest.indexOf('(');
        String name = rest.substring(0, paren);
        MethodType type = MethodType.fromMethodDescriptorString(rest.substring(paren), loader);
        if (name.equals("<init>")) {
            for (Constructor<?> k : owner.getDeclaredConstructors()) {
                if (!Modifier.isPrivate(k.getModifiers()) && List.of(k.getParameterTypes()).equals(type.parameterList())) {
                    return true;
                }
            }
            return false;
        }
        for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getReturnType() == type.returnType()
                        && List.of(m.getParameterTypes()).equals(type.parameterList())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code owner#name descriptor} as a reader would write it: {@code Owner.name(descriptor)}. */
    private static String readable(String member) {
        String owner = member.substring(0, member.indexOf('#'));
        return owner.substring(owner.lastIndexOf('/') + 1).replace('$', '.') + "."
                + member.substring(member.indexOf('#') + 1);
    }

    /**
     * Every public method the stand-in declares (but {@code StandIn}'s) overrides one of {@code producerMetadata}'s
     * with the same return type: a method that overrides nothing there would never be called, and the producer would
     * fall back to the superclass's empty metadata.
     *
     * @throws NoSuchMethodException naming the first method that overrides nothing
     */
    private static void requireOverrides(Class<?> standIn, Class<?> producerMetadata) throws NoSuchMethodException {
        for (Method m : standIn.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()
                    && !m.getName().equals("bridge")) {
                Method overridden = producerMetadata.getMethod(m.getName(), m.getParameterTypes());
                if (!overridden.getReturnType().isAssignableFrom(m.getReturnType())) {
                    throw new NoSuchMethodException(overridden + " returns " + overridden.getReturnType().getName());
                }
            }
        }
    }

    private static KafkaException unsupported(String version, String why, Throwable cause) {
        String found = version == null ? "an unknown version" : version;
        return new KafkaException("kmeta's KafkaProducer route supports " + SUPPORTED + "; found kafka-clients "
                + found + " on the class path (" + why + ")", cause);
    }

    /**
     * kafka-clients' own record of its version, or null: the one in the jar its classes come from (not the first the
     * class loader finds: with two kafka-clients on the class path that can be the other's, {@link KafkaClientsJars}).
     */
    public static String kafkaClientsVersion() {
        KafkaClientsJars.Jar loaded = KafkaClientsJars.of(ProducerMetadata.class).loaded();
        if (loaded != null && !"unknown".equals(loaded.version())) {
            return loaded.version();
        }
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
    public ProducerMetadata newMetadata(ProducerBridge bridge, long refreshBackoffMs, long refreshBackoffMaxMs,
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
    public <K, V> KafkaProducer<K, V> newProducer(ProducerConfig config, Serializer<K> keySerializer,
                                                  Serializer<V> valueSerializer, ProducerMetadata metadata) {
        try {
            return (KafkaProducer<K, V>) producerConstructor.newInstance(config, keySerializer, valueSerializer,
                    metadata, null, null, new ApiVersions(), PRODUCER_TIME);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new KafkaException("Could not construct the KafkaProducer", e);
        }
    }

    /**
     * The record accumulator of a KafkaProducer (its private field {@code accumulator}, as in 4.0-4.4), or null when
     * it cannot be read: then a re-created topic's vanished partitions' records expire at {@code delivery.timeout.ms}
     * ({@code StaleQueues}).
     */
    public Object accumulatorOf(KafkaProducer<?, ?> producer) {
        try {
            Field f = KafkaProducer.class.getDeclaredField("accumulator");
            f.setAccessible(true);
            return f.get(producer);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The network thread of a KafkaProducer (its private field {@code ioThread}, as in 4.0-4.4), its Sender's
     * {@code isRunning()} (false once {@code close()} began) and {@code wakeup()} (public: it wakes the producer's
     * selector), or null when either cannot be read: then the producer's network thread is held before kmeta's first
     * answer only while the producer is open, and looks for kmeta's answers every few ms ({@link ProducerBridge}).
     */
    public SenderRef senderOf(KafkaProducer<?, ?> producer) {
        try {
            Field io = KafkaProducer.class.getDeclaredField("ioThread");
            io.setAccessible(true);
            Field s = KafkaProducer.class.getDeclaredField("sender");
            s.setAccessible(true);
            Thread thread = (Thread) io.get(producer);
            org.apache.kafka.clients.producer.internals.Sender sender =
                    (org.apache.kafka.clients.producer.internals.Sender) s.get(producer);
            return thread == null || sender == null ? null : new SenderRef(thread, sender::isRunning,
                    sender::wakeup);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** The {@code ProducerMetadata} a KafkaProducer runs on, or null if it cannot be read. */
    public Object metadataOf(KafkaProducer<?, ?> producer) {
        try {
            return producerMetadata.get(producer);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
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
