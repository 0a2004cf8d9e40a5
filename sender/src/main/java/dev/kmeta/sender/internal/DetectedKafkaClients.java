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

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;

/**
 * What the kafka-clients on the class path has, found once by {@link KafkaClientsCompat} at its class initialisation:
 * its version, commit and jar (read from the jar its classes come from, {@link KafkaClientsJars}; whether another
 * kafka-clients is on the class path too, {@link #twoJars}), the method handles of the calls that differ between
 * versions, and why kmeta cannot run on it ({@link #refusal}) or has not been tested with it ({@link #untested}).
 * Detection never throws: a problem becomes {@link #refusal}.
 *
 * <p>Thread-safe: written only by {@link #detect()}, during {@link KafkaClientsCompat}'s class initialisation, and
 * read-only after it (class initialisation publishes it).
 */
@SuppressKafkaInternalApiUsage("finds the NetworkClient, record and produce-request calls that differ between "
        + "kafka-clients versions")
final class DetectedKafkaClients {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.publicLookup();

    String version = "unknown";
    String commitId = "unknown";
    String location = "unknown location";
    String refusal;
    String untested;
    String twoJars;
    MethodHandle newLogContext;
    MethodHandle createNetworkClient4_4;
    MethodHandle createNetworkClient4_0;
    Class<?> simpleRecord;
    MethodHandle newSimpleRecord;
    MethodHandle withRecords;
    MethodHandle setRecords;
    MethodHandle setProduceTopicId;
    MethodHandle produceTopicId;
    MethodHandle produceResponseTopicId;
    boolean sendsClusterIdentity;

    static DetectedKafkaClients detect() {
        DetectedKafkaClients abi = new DetectedKafkaClients();
        try {
            KafkaClientsJars jars = KafkaClientsJars.of(KafkaException.class);
            abi.twoJars = jars.warning();
            if (jars.loaded() != null && !"unknown".equals(jars.loaded().version())) {
                abi.version = jars.loaded().version(); // the jar the classes come from, not the first marker found
                abi.commitId = jars.loaded().commitId();
            } else {
                abi.version = appInfo("getVersion");
                abi.commitId = appInfo("getCommitId");
            }
            if ("unknown".equals(abi.version)) {
                String manifest = KafkaException.class.getPackage().getImplementationVersion();
                abi.version = manifest != null ? manifest : "unknown";
            }
            abi.location = location(KafkaException.class);
            String found = "kafka-clients " + abi.version + " (" + abi.location + ")";
            Integer vsOldest = KafkaClientsCompat.compareMinor(abi.version, KafkaClientsCompat.OLDEST);
            if (vsOldest != null && vsOldest < 0) {
                abi.refusal = "kmeta needs kafka-clients " + KafkaClientsCompat.SUPPORTED + "; found " + found
                        + ". Upgrade kafka-clients to " + KafkaClientsCompat.OLDEST + " or newer.";
                return abi;
            }
            List<String> missing = new ArrayList<>();
            abi.findAll(missing);
            if (!missing.isEmpty()) {
                abi.refusal = "kmeta cannot run on " + found + " (supported: " + KafkaClientsCompat.SUPPORTED
                        + "): missing " + String.join("; ", missing);
                return abi;
            }
            Integer vsNewest = KafkaClientsCompat.compareMinor(abi.version, KafkaClientsCompat.NEWEST);
            if (vsNewest == null || vsNewest > 0) {
                abi.untested = "kmeta was tested with kafka-clients " + KafkaClientsCompat.SUPPORTED + "; found "
                        + found + ": trying it (the calls kmeta needs were found)";
            }
        } catch (RuntimeException | LinkageError e) {
            abi.refusal = "kmeta cannot run on kafka-clients " + abi.version + " (" + abi.location
                    + "; supported: " + KafkaClientsCompat.SUPPORTED + "): " + e;
        }
        return abi;
    }

    private void findAll(List<String> missing) {
        Class<?> logContext = firstClass(missing, "LogContext", "org.apache.kafka.common.utils.internals.LogContext",
                "org.apache.kafka.common.utils.LogContext");
        if (logContext != null) {
            newLogContext = constructor(missing, logContext, String.class);
            Class<?> clientUtils = firstClass(missing, "ClientUtils", "org.apache.kafka.clients.ClientUtils");
            Class<?> metadata = firstClass(missing, "Metadata", "org.apache.kafka.clients.Metadata");
            Class<?> sensor = firstClass(missing, "Sensor", "org.apache.kafka.common.metrics.Sensor");
            Class<?> telemetry = firstClass(missing, "ClientTelemetrySender",
                    "org.apache.kafka.common.telemetry.internals.ClientTelemetrySender");
            if (clientUtils != null && metadata != null && sensor != null && telemetry != null) {
                createNetworkClient4_4 = staticMethod(null, clientUtils, "createNetworkClient",
                        NetworkClient.class, AbstractConfig.class, List.class, String.class, Metrics.class,
                        String.class, logContext, ApiVersions.class, Time.class, int.class, int.class, metadata,
                        MetadataUpdater.class, HostResolver.class, sensor, telemetry);
                createNetworkClient4_0 = staticMethod(null, clientUtils, "createNetworkClient",
                        NetworkClient.class, AbstractConfig.class, String.class, Metrics.class, String.class,
                        logContext, ApiVersions.class, Time.class, int.class, int.class, metadata,
                        MetadataUpdater.class, HostResolver.class, sensor, telemetry);
                if (createNetworkClient4_4 == null && createNetworkClient4_0 == null) {
                    missing.add("ClientUtils.createNetworkClient(AbstractConfig, [List,] String, Metrics, String, "
                            + logContext.getSimpleName() + ", ApiVersions, Time, int, int, Metadata, "
                            + "MetadataUpdater, HostResolver, Sensor, ClientTelemetrySender)");
                }
            }
        }
        findRecords(missing);
        setProduceTopicId = method(TopicProduceData.class, "setTopicId", TopicProduceData.class, Uuid.class);
        produceTopicId = method(TopicProduceData.class, "topicId", Uuid.class);
        produceResponseTopicId = method(TopicProduceResponse.class, "topicId", Uuid.class);
        sendsClusterIdentity = method(MetadataUpdater.class, "clusterId", String.class) != null;
    }

    private void findRecords(List<String> missing) {
        String[] packages = {"org.apache.kafka.common.record.internal.", "org.apache.kafka.common.record."};
        simpleRecord = firstClass(missing, "SimpleRecord", packages[0] + "SimpleRecord",
                packages[1] + "SimpleRecord");
        Class<?> memoryRecords = firstClass(missing, "MemoryRecords", packages[0] + "MemoryRecords",
                packages[1] + "MemoryRecords");
        if (simpleRecord == null || memoryRecords == null) {
            return;
        }
        newSimpleRecord = constructor(missing, simpleRecord, long.class, byte[].class, byte[].class);
        Class<?> array = Array.newInstance(simpleRecord, 0).getClass();
        withRecords = staticMethod(missing, memoryRecords, "withRecords", memoryRecords, Compression.class, array);
        if (withRecords != null) {
            withRecords = withRecords.asFixedArity(); // varargs: called with the array itself
        }
        for (Method m : PartitionProduceData.class.getMethods()) {
            if (m.getName().equals("setRecords") && m.getParameterCount() == 1
                    && m.getParameterTypes()[0].isAssignableFrom(memoryRecords)) {
                setRecords = unreflect(m);
            }
        }
        if (setRecords == null) {
            missing.add("PartitionProduceData.setRecords(" + memoryRecords.getName() + ")");
        }
    }

    private static String appInfo(String getter) {
        for (String name : new String[] {"org.apache.kafka.common.utils.internals.AppInfoParser",
                "org.apache.kafka.common.utils.AppInfoParser"}) {
            try {
                Class<?> parser = Class.forName(name, true, KafkaException.class.getClassLoader());
                Object v = parser.getMethod(getter).invoke(null);
                if (v != null && !"unknown".equals(v)) {
                    return v.toString();
                }
            } catch (ReflectiveOperationException | LinkageError e) {
                // not there in this version: try the other package
            }
        }
        return "unknown";
    }

    private static String location(Class<?> c) {
        try {
            CodeSource source = c.getProtectionDomain().getCodeSource();
            return source != null && source.getLocation() != null ? source.getLocation().toString()
                    : "unknown location";
        } catch (SecurityException e) {
            return "unknown location";
        }
    }

    private static Class<?> firstClass(List<String> missing, String what, String... names) {
        for (String name : names) {
            try {
                return Class.forName(name, false, KafkaException.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                // try the next
            }
        }
        missing.add(what + " (looked for " + String.join(", ", names) + ")");
        return null;
    }

    private static MethodHandle constructor(List<String> missing, Class<?> owner, Class<?>... params) {
        try {
            return LOOKUP.findConstructor(owner, MethodType.methodType(void.class, params));
        } catch (ReflectiveOperationException e) {
            missing.add("constructor " + owner.getName() + MethodType.methodType(void.class, params));
            return null;
        }
    }

    private static MethodHandle staticMethod(List<String> missing, Class<?> owner, String name, Class<?> ret,
                                             Class<?>... params) {
        try {
            return LOOKUP.findStatic(owner, name, MethodType.methodType(ret, params));
        } catch (ReflectiveOperationException e) {
            if (missing != null) {
                missing.add(owner.getSimpleName() + "." + name + MethodType.methodType(ret, params));
            }
            return null;
        }
    }

    private static MethodHandle method(Class<?> owner, String name, Class<?> ret, Class<?>... params) {
        try {
            return LOOKUP.findVirtual(owner, name, MethodType.methodType(ret, params));
        } catch (ReflectiveOperationException e) {
            return null; // optional
        }
    }

    private static MethodHandle unreflect(Method m) {
        try {
            return LOOKUP.unreflect(m);
        } catch (IllegalAccessException e) {
            return null;
        }
    }
}
