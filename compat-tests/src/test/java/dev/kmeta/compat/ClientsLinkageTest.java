package dev.kmeta.compat;

import dev.kmeta.testkit.TestClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.examples.ExampleProducer;
import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every reference kmeta's compiled main code makes to kafka-clients (classes, fields, methods with their exact
 * descriptors, types in signatures) resolves in each kafka-clients release's jar ({@code KafkaClientsCompat.OLDEST}
 * to {@code NEWEST}, every patch). kmeta compiles against 4.4; a reference that exists only in 4.4 (say,
 * {@code common.utils.internals.LogContext}) would be a {@code NoClassDefFoundError} on 4.0-4.3 at the first call that
 * links it, and is found here without running it.
 * What differs between versions goes through {@code KafkaClientsCompat}, which names those classes and methods only
 * as strings (reflection, method handles), so it has no reference to fail here.
 *
 * <p>The KafkaProducer route ({@code kafka-producer}) is checked too, each of its per-ABI {@code ProducerMetadata}
 * stand-ins on its own ABI only: {@code ProducerMetadata40} (compiled against 4.3.1) on 4.0-4.3,
 * {@code ProducerMetadata44} on 4.4; {@code KafkaClientsAbi} loads each only there, and the check that the other ABI
 * really does not link shows why there are two.
 *
 * <p>Checked: sender, examples, kafka-producer, and the testkit classes a test JVM runs when its brokers are in child JVMs (the
 * client-version run of the sender's tests); not the testkit's in-process node support ({@code KafkaExit}), which
 * runs only with this JVM's own 4.4 brokers, nor its {@code FakeBroker} (4.4 only), and not cli and bench, which ship
 * with kafka-clients 4.4.
 */
class ClientsLinkageTest {
    /**
     * testkit classes (with their nested ones) that run only with this JVM's kafka-clients 4.4: the in-process node
     * support, and the protocol-level {@code FakeBroker} (it reads 4.4's internal record classes; the benchmarks
     * that use it ship with 4.4).
     */
    private static final Set<String> IN_PROCESS_ONLY = Set.of("dev.kmeta.testkit.KafkaExit",
            "dev.kmeta.testkit.FakeBroker", "dev.kmeta.testkit.FakeBrokerAnswers");

    /** The per-ABI stand-ins of the KafkaProducer route, and whether each is for a version (4.4: the "44" one). */
    private static final String STAND_IN_40 = "dev.kmeta.producer.internal.ProducerMetadata40";
    private static final String STAND_IN_44 = "dev.kmeta.producer.internal.ProducerMetadata44";

    private static final Map<String, Set<ClassRefs.Ref>> REFS = new LinkedHashMap<>();
    private static ClassLoader compiledAgainst;

    static List<String> versions() {
        return ClientJars.releases(); // every 4.x release, each patch
    }

    @BeforeAll
    static void scan() throws Exception {
        compiledAgainst = ClientJars.isolated(ClientJars.jar(org.apache.kafka.common.utils.internals.AppInfoParser
                .getVersion()), List.of());
        Map<String, Path> modules = Map.of("sender", ClientJars.locationOf(KafkaMetadata.class),
                "examples", ClientJars.locationOf(ExampleProducer.class),
                "kafka-producer", ClientJars.locationOf(KmetaProducer.class),
                "testkit", ClientJars.locationOf(KafkaCluster.class));
        for (var module : modules.entrySet()) {
            boolean clientsOnly = module.getKey().equals("kafka-producer"); // its stand-in for 4.0-4.3 names 4.3 classes
            Set<ClassRefs.Ref> refs = ClassRefs.under(module.getValue(), "org/apache/kafka/").stream()
                    .filter(r -> !IN_PROCESS_ONLY.contains(r.from().replaceFirst("\\$.*", "")))
                    // KIP-1265's annotations (4.4): absent on 4.0-4.3, where the JVM skips an annotation whose type
                    // is missing; no main code calls them (KafkaInternalApiTest)
                    .filter(r -> !r.owner().startsWith("org/apache/kafka/common/annotation/"))
                    .filter(r -> clientsOnly || isKafkaClientsClass(r.owner())) // kafka-server etc.: no client's concern
                    .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
            REFS.put(module.getKey(), refs);
        }
        assertTrue(REFS.get("sender").stream().anyMatch(r -> r.owner().equals("org/apache/kafka/clients/NetworkClient")),
                "the scan finds the sender's references: " + REFS.get("sender").size());
        for (String standIn : List.of(STAND_IN_40, STAND_IN_44)) {
            assertTrue(REFS.get("kafka-producer").stream().anyMatch(r -> r.from().equals(standIn)),
                    "the scan finds " + standIn + " in the kafka-producer jar");
        }
    }

    private static boolean isKafkaClientsClass(String owner) {
        try {
            Class.forName(owner.replace('/', '.'), false, compiledAgainst);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("versions")
    void everyKafkaClientsReferenceResolves(String version) {
        ClassLoader loader = ClientJars.isolated(ClientJars.jar(version), List.of());
        List<String> unresolved = new ArrayList<>();
        int checked = 0;
        for (var module : REFS.entrySet()) {
            for (ClassRefs.Ref ref : module.getValue()) {
                if (!forThisAbi(ref, version)) {
                    continue;
                }
                checked++;
                String problem = resolve(ref, loader);
                if (problem != null) {
                    unresolved.add(module.getKey() + ": " + ref + ": " + problem);
                }
            }
        }
        TestClients.report("%s", "kafka-clients " + version + ": " + checked + " references checked, "
                + unresolved.size() + " unresolved");
        assertEquals(List.of(), unresolved, "references that do not link on kafka-clients " + version);
    }

    /** A stand-in is checked on its own ABI only; every other class on every version. */
    private static boolean forThisAbi(ClassRefs.Ref ref, String version) {
        boolean is44 = version.startsWith("4.4.");
        String from = ref.from().replaceAll("\\$.*", "");
        return !(from.equals(STAND_IN_40) && is44) && !(from.equals(STAND_IN_44) && !is44);
    }

    /** Each stand-in does not link on the other ABI: one compiled class could not serve both. */
    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("versions")
    void theOtherAbisStandInDoesNotLink(String version) {
        ClassLoader loader = ClientJars.isolated(ClientJars.jar(version), List.of());
        String other = version.startsWith("4.4.") ? STAND_IN_40 : STAND_IN_44;
        List<String> unresolved = REFS.get("kafka-producer").stream().filter(r -> r.from().equals(other))
                .map(r -> resolve(r, loader) == null ? null : r.toString()).filter(java.util.Objects::nonNull)
                .collect(Collectors.toList());
        TestClients.report("%s", "kafka-clients " + version + ": " + other + " has " + unresolved.size()
                + " unresolved references, e.g. " + unresolved.stream().limit(2).collect(Collectors.toList()));
        assertFalse(unresolved.isEmpty(), other + " should not link on kafka-clients " + version);
    }

    /** The refused version really lacks things: the check is not vacuous. */
    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("refusedVersion")
    void theRefusedVersionLacksWhatKmetaUses(String version) {
        ClassLoader loader = ClientJars.isolated(ClientJars.jar(version), List.of());
        long unresolved = REFS.get("sender").stream().filter(r -> resolve(r, loader) != null).count();
        assertFalse(unresolved == 0, "kafka-clients " + version + " should miss something kmeta uses");
    }

    static List<String> refusedVersion() {
        return List.of(ClientJars.refused());
    }

    /** Null if the reference links in this loader's kafka-clients, else why not. */
    private static String resolve(ClassRefs.Ref ref, ClassLoader loader) {
        Class<?> owner;
        try {
            owner = Class.forName(ref.owner().replace('/', '.'), false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return "no class " + ref.owner().replace('/', '.');
        }
        try {
            return switch (ref.kind()) {
                case "class" -> null;
                case "field" -> hierarchy(owner).anyMatch(c -> hasField(c, ref)) ? null : "no such field";
                default -> ref.name().equals("<init>")
                        ? Stream.of(owner.getDeclaredConstructors()).anyMatch(k -> descriptor(k).equals(ref.descriptor()))
                                ? null : "no such constructor"
                        : hierarchy(owner).anyMatch(c -> hasMethod(c, ref)) ? null : "no such method";
            };
        } catch (LinkageError e) {
            return e.toString();
        }
    }

    private static Stream<Class<?>> hierarchy(Class<?> start) {
        List<Class<?>> all = new ArrayList<>();
        Set<Class<?>> seen = new HashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(start));
        while (!todo.isEmpty()) {
            Class<?> c = todo.pop();
            if (c == null || !seen.add(c)) {
                continue;
            }
            all.add(c);
            todo.add(c.getSuperclass() == null ? Object.class : c.getSuperclass());
            todo.addAll(List.of(c.getInterfaces()));
        }
        return all.stream();
    }

    private static boolean hasField(Class<?> c, ClassRefs.Ref ref) {
        for (Field f : c.getDeclaredFields()) {
            if (f.getName().equals(ref.name()) && f.getType().descriptorString().equals(ref.descriptor())) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasMethod(Class<?> c, ClassRefs.Ref ref) {
        for (Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(ref.name()) && MethodType.methodType(m.getReturnType(), m.getParameterTypes())
                    .toMethodDescriptorString().equals(ref.descriptor())) {
                return true;
            }
        }
        return false;
    }

    private static String descriptor(Constructor<?> k) {
        return MethodType.methodType(void.class, k.getParameterTypes()).toMethodDescriptorString();
    }
}
