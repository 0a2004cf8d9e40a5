package dev.kmeta.compat;

import dev.kmeta.testkit.TestClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.micrometer.KmetaMetrics;
import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import dev.kmeta.sender.KafkaMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * kmeta's references to Kafka's internals, audited as Kafka audits its users (KIP-1265, kafka-clients 4.4): a Kafka
 * class is public API only if it, or a class it is nested in, is annotated {@code @InterfaceAudience.Public}; any
 * other {@code org.apache.kafka} class (including those absent from 4.4, which the 4.0-4.3 stand-in names) is internal.
 * Nested classes: kafka-clients 4.4 annotates no nested class itself (91 public nested classes of annotated classes,
 * e.g. {@code ConfigEntry.ConfigSource}, carry no annotation of their own), so a nested class counts as public when
 * an enclosing class is annotated, and {@code Metadata.LeaderIdAndEpoch} (in the unannotated {@code Metadata}) is
 * internal.
 *
 * <ul>
 *   <li>Every main class of the library modules (cluster-model, metadata, sender, kafka-producer, micrometer) that
 *       refers to an internal Kafka class (in its constant pool: a class, a member's owner, a type in a descriptor or
 *       signature) carries {@code @SuppressKafkaInternalApiUsage} with a reason, itself or through the class it is
 *       nested in (a lambda is its class's code; an anonymous or nested class is covered by its outer class, as a
 *       {@code @SuppressWarnings} would be). The suppression is per class, not per member: the constant pool is
 *       per class.</li>
 *   <li>The list of those references (kmeta class -> Kafka internal types) is printed, and must equal the list in
 *       docs/kafka-producer.md ("Upgrading kafka-clients"): it is the map of what a kafka-clients upgrade can break.</li>
 *   <li>No exported signature of kmeta (public and protected members, supertypes, of public types in the packages a
 *       module exports to everyone) names an internal Kafka type, except {@code DrivenKafkaMetadata}'s: the driven
 *       mode hands kafka-clients' {@code MetadataUpdater}, {@code HostResolver} and {@code KafkaClient} across, and
 *       that type is the only one that does.</li>
 * </ul>
 */
class KafkaInternalApiTest {
    /** The one exported type allowed to name Kafka internals in its signatures. */
    static final String DRIVEN = "dev.kmeta.sender.DrivenKafkaMetadata";
    private static final String ANNOTATIONS = "org/apache/kafka/common/annotation/";
    private static final String PUBLIC = "org.apache.kafka.common.annotation.InterfaceAudience$Public";
    static final String DOCS_START = "<!-- kafka-internal-references: KafkaInternalApiTest (compat-tests) fails when"
            + " this list and the code differ; it prints the list to paste here -->";
    static final String DOCS_END = "<!-- /kafka-internal-references -->";

    private static final Map<String, Path> MODULES = new LinkedHashMap<>();
    /** kmeta class (top level) -> the internal Kafka types it and its nested classes refer to. */
    private static final Map<String, Set<String>> INTERNAL = new TreeMap<>();
    /** The kmeta classes (nested ones included) that refer to internals. */
    private static final Set<String> REFERRING = new TreeSet<>();
    private static ClassLoader kafka44;
    private static Class<? extends Annotation> publicAnnotation;

    @BeforeAll
    static void scan() throws Exception {
        MODULES.put("cluster-model", ClientJars.locationOf(Cluster.class));
        MODULES.put("metadata", ClientJars.locationOf(MetadataClient.class));
        MODULES.put("sender", ClientJars.locationOf(KafkaMetadata.class));
        MODULES.put("kafka-producer", ClientJars.locationOf(KmetaProducer.class));
        MODULES.put("micrometer", ClientJars.locationOf(KmetaMetrics.class));
        kafka44 = ClientJars.isolated(ClientJars.jar(org.apache.kafka.common.utils.internals.AppInfoParser
                .getVersion()), List.of());
        publicAnnotation = Class.forName(PUBLIC, false, kafka44).asSubclass(Annotation.class);
        Map<String, Boolean> publicApi = new LinkedHashMap<>();
        for (Path location : MODULES.values()) {
            for (ClassRefs.Ref ref : ClassRefs.under(location, "org/apache/kafka/")) {
                if (ref.owner().startsWith(ANNOTATIONS)) {
                    continue; // the audit's own annotations
                }
                String kafkaClass = ref.owner().replace('/', '.');
                if (!publicApi.computeIfAbsent(kafkaClass, KafkaInternalApiTest::isPublicApi)) {
                    INTERNAL.computeIfAbsent(ref.from().replaceAll("\\$.*", ""), k -> new TreeSet<>())
                            .add(kafkaClass.substring("org.apache.kafka.".length()).replace('$', '.'));
                    REFERRING.add(ref.from());
                }
            }
        }
        TestClients.report("%s", "Kafka classes referenced: " + publicApi.size() + ", of which internal: "
                + publicApi.values().stream().filter(p -> !p).count() + "; kmeta classes referring to internals: "
                + INTERNAL.size());
        TestClients.report("%s", "kmeta's references to Kafka internals (what a kafka-clients upgrade can "
                + "break):\n" + docsList());
    }

    /** Whether kafka-clients 4.4 marks the class, or a class it is nested in, {@code @InterfaceAudience.Public}. */
    static boolean isPublicApi(String binaryName) {
        for (String name = binaryName; ; name = name.substring(0, name.lastIndexOf('$'))) {
            try {
                if (Class.forName(name, false, kafka44).isAnnotationPresent(publicAnnotation)) {
                    return true;
                }
            } catch (ClassNotFoundException | LinkageError e) {
                return false; // not in 4.4 (a 4.0-4.3 class the older stand-in names): not public there
            }
            if (name.indexOf('$') < 0) {
                return false;
            }
        }
    }

    @Test
    void everyReferenceToKafkaInternalsIsSuppressedWithAReason() {
        assertFalse(REFERRING.isEmpty(), "the scan finds kmeta's references to Kafka internals");
        List<String> unsuppressed = new ArrayList<>();
        for (String from : REFERRING) {
            String reason = suppression(from);
            if (reason == null || reason.strip().length() < 20) {
                unsuppressed.add(from + (reason == null ? "" : " (reason too short: \"" + reason + "\")"));
            }
        }
        assertEquals(List.of(), unsuppressed, "classes that use Kafka internals (listed above) without "
                + "@SuppressKafkaInternalApiUsage(\"why\") (on the class or a class it is nested in)");
    }

    /** The suppression's reason on the class or the nearest class it is nested in, or null. */
    private static String suppression(String binaryName) {
        for (String name = binaryName; ; name = name.substring(0, name.lastIndexOf('$'))) {
            try {
                SuppressKafkaInternalApiUsage s = Class.forName(name, false, KafkaInternalApiTest.class
                        .getClassLoader()).getAnnotation(SuppressKafkaInternalApiUsage.class);
                if (s != null) {
                    return s.value();
                }
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
            if (name.indexOf('$') < 0) {
                return null;
            }
        }
    }

    @Test
    void theDocsListTheInternalReferencesTheCodeHas() throws IOException {
        String docs = Files.readString(Paths.get("..", "docs", "kafka-producer.md"), StandardCharsets.UTF_8);
        int start = docs.indexOf(DOCS_START);
        int end = docs.indexOf(DOCS_END);
        assertTrue(start >= 0 && end > start, "docs/kafka-producer.md has the list between " + DOCS_START
                + " and " + DOCS_END);
        String listed = docs.substring(start + DOCS_START.length(), end).strip();
        assertEquals(docsList().strip(), listed, "docs/kafka-producer.md's list of internal references differs "
                + "from the code: paste the list printed above");
    }

    /** The list as docs/kafka-producer.md has it: a Markdown table. */
    static String docsList() {
        StringBuilder b = new StringBuilder("| kmeta class | Kafka types it uses that are not public API "
                + "(under `org.apache.kafka.`) |\n|---|---|\n");
        INTERNAL.forEach((from, types) -> b.append("| `").append(from.replace("dev.kmeta.", "")).append("` | ")
                .append(types.stream().map(t -> "`" + t + "`").collect(Collectors.joining(", "))).append(" |\n"));
        return b.toString();
    }

    /**
     * Every member of an internal Kafka class that the KafkaProducer route's compiled code links to is one that
     * {@code KafkaClientsAbi} resolves before it picks a stand-in ({@code requiredMembers()}): so a kafka-clients
     * that changed one is "unsupported" at creation (a stock producer), not a {@code NoSuchMethodError} in a send.
     */
    @Test
    void theRouteChecksEveryInternalMemberItLinksTo() throws IOException {
        Set<String> linked = new TreeSet<>();
        for (ClassRefs.Ref ref : ClassRefs.under(MODULES.get("kafka-producer"), "org/apache/kafka/")) {
            if (!ref.kind().equals("class") && !ref.owner().startsWith(ANNOTATIONS)
                    && !isPublicApi(ref.owner().replace('/', '.'))) {
                linked.add(ref.owner() + "#" + ref.name() + (ref.kind().equals("field") ? ":" : "")
                        + ref.descriptor());
            }
        }
        Set<String> checked = KafkaClientsAbi.requiredMembers();
        TestClients.report("%s", "internal Kafka members the route links to: " + linked.size()
                + "; resolved by KafkaClientsAbi before it picks a stand-in: " + checked.size());
        assertFalse(linked.isEmpty(), "the scan finds the route's links");
        Set<String> unchecked = new TreeSet<>(linked);
        unchecked.removeAll(checked);
        assertEquals(Set.of(), unchecked, "links to Kafka internals that KafkaClientsAbi does not resolve before "
                + "choosing a stand-in: add them to its COMMON list or a Shape");
        Set<String> stale = new TreeSet<>(checked);
        stale.removeAll(linked);
        // the methods that tell the shapes apart are overridden by the stand-ins, not called: no link of theirs
        stale.removeIf(m -> m.startsWith("org/apache/kafka/clients/producer/internals/ProducerMetadata#")
                && !m.contains("#<init>"));
        assertEquals(Set.of(), stale, "members KafkaClientsAbi requires that the code no longer links to");
    }

    @Test
    void noExportedSignatureNamesAKafkaInternalButTheDrivenModes() throws Exception {
        List<String> named = new ArrayList<>();
        Set<String> drivenNames = new TreeSet<>();
        int types = 0;
        for (Path location : MODULES.values()) {
            for (Class<?> c : exportedTypes(location)) {
                types++;
                for (Map.Entry<String, Type> signature : signatures(c).entrySet()) {
                    for (Class<?> kafka : kafkaClasses(signature.getValue())) {
                        if (!isPublicApi(kafka.getName())) {
                            if (c.getName().equals(DRIVEN)) {
                                drivenNames.add(kafka.getName());
                            } else {
                                named.add(signature.getKey() + " names " + kafka.getName());
                            }
                        }
                    }
                }
            }
        }
        TestClients.report("%s", "exported kmeta types: " + types + "; internal Kafka types named by "
                + DRIVEN + ": " + drivenNames);
        assertTrue(types > 20, "the scan finds kmeta's exported types: " + types);
        assertEquals(List.of(), named, "exported signatures naming Kafka internals (only " + DRIVEN + " may)");
        assertEquals(Set.of("org.apache.kafka.clients.HostResolver", "org.apache.kafka.clients.KafkaClient",
                "org.apache.kafka.clients.MetadataUpdater"), drivenNames, "the driven mode's documented types");
    }

    /** Public types (and public types nested in public types) of the packages a module exports to everyone. */
    private static List<Class<?>> exportedTypes(Path location) throws Exception {
        if (Files.isRegularFile(location)) {
            try (FileSystem jar = FileSystems.newFileSystem(location)) {
                return exportedTypes(jar.getPath("/"));
            }
        }
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(location.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        List<Class<?>> out = new ArrayList<>();
        for (ModuleDescriptor.Exports e : module.exports()) {
            if (e.isQualified()) {
                continue;
            }
            List<Path> files;
            try (Stream<Path> list = Files.list(location.resolve(e.source().replace('.', '/')))) {
                files = list.filter(p -> p.toString().endsWith(".class")).sorted().collect(Collectors.toList());
            }
            for (Path f : files) {
                String simple = f.getFileName().toString().replace(".class", "");
                if (simple.equals("package-info")) {
                    continue;
                }
                Class<?> c = Class.forName(e.source() + "." + simple, false,
                        KafkaInternalApiTest.class.getClassLoader());
                boolean visible = true;
                for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
                    visible &= Modifier.isPublic(k.getModifiers());
                }
                if (visible && !c.isSynthetic() && !c.isAnonymousClass()) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /** Each exported part of a type's signature (supertypes, public and protected members), by a readable name. */
    private static Map<String, Type> signatures(Class<?> c) {
        Map<String, Type> out = new LinkedHashMap<>();
        int i = 0;
        if (c.getGenericSuperclass() != null) {
            out.put(c.getName() + " extends", c.getGenericSuperclass());
        }
        for (Type t : c.getGenericInterfaces()) {
            out.put(c.getName() + " implements #" + i++, t);
        }
        for (Field f : c.getDeclaredFields()) {
            if (exported(f)) {
                out.put(c.getName() + "." + f.getName(), f.getGenericType());
            }
        }
        List<Executable> executables = new ArrayList<>(List.of(c.getDeclaredMethods()));
        executables.addAll(List.of(c.getDeclaredConstructors()));
        for (Executable m : executables) {
            if (!exported(m)) {
                continue;
            }
            String name = c.getName() + "." + m.getName() + "(" + Stream.of(m.getParameterTypes())
                    .map(Class::getSimpleName).collect(Collectors.joining(", ")) + ")";
            if (m instanceof java.lang.reflect.Method method) {
                out.put(name + " returns", method.getGenericReturnType());
            }
            i = 0;
            for (Type t : m.getGenericParameterTypes()) {
                out.put(name + " parameter #" + i++, t);
            }
            for (Type t : m.getGenericExceptionTypes()) {
                out.put(name + " throws " + t.getTypeName(), t);
            }
        }
        return out;
    }

    private static boolean exported(Member m) {
        return !m.isSynthetic() && (Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers()));
    }

    /** The {@code org.apache.kafka} classes a type names, type arguments and bounds included. */
    private static Set<Class<?>> kafkaClasses(Type type) {
        Set<Class<?>> out = new HashSet<>();
        collect(type, out, new HashSet<>());
        out.removeIf(c -> !c.getName().startsWith("org.apache.kafka."));
        return out;
    }

    private static void collect(Type t, Set<Class<?>> out, Set<Type> seen) {
        if (t == null || !seen.add(t)) {
            return;
        }
        if (t instanceof Class<?> c) {
            out.add(c.isArray() ? c.getComponentType() : c);
        } else if (t instanceof ParameterizedType p) {
            collect(p.getRawType(), out, seen);
            collect(p.getOwnerType(), out, seen);
            for (Type a : p.getActualTypeArguments()) {
                collect(a, out, seen);
            }
        } else if (t instanceof WildcardType w) {
            Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds())).forEach(b -> collect(b, out, seen));
        } else if (t instanceof TypeVariable<?> v) {
            for (Type b : v.getBounds()) {
                collect(b, out, seen);
            }
        } else if (t instanceof GenericArrayType a) {
            collect(a.getGenericComponentType(), out, seen);
        }
    }
}
