package dev.kmeta.compat;

import dev.kmeta.testkit.TestClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.sender.KafkaMetadata;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The reverse of the pinned call traces: every {@code Metadata}/{@code ProducerMetadata} instance method that
 * kafka-clients' producer code calls - KafkaProducer, Sender, TransactionManager, RecordAccumulator (every class of
 * {@code clients.producer} and {@code clients.producer.internals}, with their nested classes and lambdas) and
 * NetworkClient with its DefaultMetadataUpdater - read from the bytecode of each 4.x release's jar, is overridden by
 * the stand-in kmeta picks for that release ({@code KafkaClientsAbi}): a call the stand-in does not override would
 * run on the superclass's own, never updated, state. A missing override fails naming the method and its callers
 * ({@code Class.method}). The scenarios of {@link ProducerCallTracesTest} exercise only some paths; this covers every
 * call site, also those no scenario reaches.
 */
class StandInOverridesTest {
    private static final Set<String> METADATA = Set.of("org/apache/kafka/clients/Metadata",
            "org/apache/kafka/clients/producer/internals/ProducerMetadata");
    /** The producer's classes that hold its metadata (ProducerMetadata itself is what the stand-in replaces). */
    private static final Pattern CALLERS = Pattern.compile("org/apache/kafka/clients/(producer/(internals/)?[^/]+"
            + "|NetworkClient(\\$.*)?)\\.class");
    private static final String PRODUCER_METADATA = "org/apache/kafka/clients/producer/internals/ProducerMetadata";

    /**
     * Called by the producer's code but never on the stand-in, each with why. A change of kafka-clients that reaches
     * one of them anyway would show in the pinned traces only if the stand-in overrode it: keep this list short.
     */
    private static final Map<String, String> NOT_REACHED = Map.of("newMetadataRequestAndVersion",
            "DefaultMetadataUpdater.maybeUpdate builds a Metadata request only after timeToNextUpdate returned 0, "
                    + "which the stand-in never returns (ProducerBridge.timeToNextUpdate)");

    static List<String> versions() {
        return ClientJars.releases();
    }

    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("versions")
    void everyMetadataMethodTheProducerCallsIsOverriddenByTheStandIn(String version) throws Exception {
        Map<String, Set<String>> calls = metadataCalls(ClientJars.jar(version));
        ClassLoader loader = ClientJars.isolated(ClientJars.jar(version), List.of(
                ClientJars.locationOf(KafkaMetadata.class), ClientJars.locationOf(MetadataClient.class),
                ClientJars.locationOf(Cluster.class), ClientJars.locationOf(KmetaProducer.class)));
        Class<?> abi = loader.loadClass("dev.kmeta.producer.internal.abi.KafkaClientsAbi");
        Class<?> producerMetadata = loader.loadClass("org.apache.kafka.clients.producer.internals.ProducerMetadata");
        String standInName = (String) abi.getMethod("standInClass").invoke(abi.getMethod("select", String.class,
                String.class, Class.class).invoke(null, version, null, producerMetadata));
        Class<?> standIn = loader.loadClass(standInName);
        Class<?> metadata = loader.loadClass("org.apache.kafka.clients.Metadata");
        List<String> missing = new ArrayList<>();
        int checked = 0;
        for (var call : calls.entrySet()) {
            String nameAndDescriptor = call.getKey();
            int paren = nameAndDescriptor.indexOf('(');
            String name = nameAndDescriptor.substring(0, paren);
            String descriptor = nameAndDescriptor.substring(paren);
            Method declared = find(metadata, loader.loadClass(PRODUCER_METADATA.replace('/', '.')), name, descriptor);
            if (name.equals("<init>") || declared != null && Modifier.isStatic(declared.getModifiers())
                    || NOT_REACHED.containsKey(name)) {
                continue; // KafkaProducer's constructor makes its own ProducerMetadata only when given none
            }
            checked++;
            if (!declares(standIn, name, descriptor)) {
                missing.add(name + descriptor + (declared != null && Modifier.isFinal(declared.getModifiers())
                        ? " (final in kafka-clients)" : "") + ", called by " + call.getValue());
            }
        }
        TestClients.report("%s", "kafka-clients " + version + ": " + calls.size() + " metadata methods called by "
                + "the producer, " + checked + " checked on " + standIn.getSimpleName() + ": " + calls.keySet());
        assertTrue(checked >= 10, "the scan finds the producer's metadata calls: " + calls);
        assertEquals(List.of(), missing, "ProducerMetadata/Metadata methods kafka-clients " + version
                + " calls that " + standIn.getSimpleName() + " does not override");
    }

    /** The scan sees what it must: 4.4's KafkaProducer calls add(Collection, long); updatePartitionLeadership. */
    @Test
    void theScanFindsKnownCallSites() throws Exception {
        Map<String, Set<String>> calls = metadataCalls(ClientJars.jar("4.4.0"));
        assertTrue(String.valueOf(calls.get("add(Ljava/util/Collection;J)Ljava/util/OptionalInt;"))
                .contains("org.apache.kafka.clients.producer.KafkaProducer."), String.valueOf(calls));
        assertTrue(calls.keySet().stream().anyMatch(m -> m.startsWith("updatePartitionLeadership(")), calls.keySet()
                .toString());
        assertTrue(calls.keySet().stream().anyMatch(m -> m.startsWith("timeToNextUpdate(")), calls.keySet()
                .toString());
    }

    private static Method find(Class<?> metadata, Class<?> producerMetadata, String name, String descriptor) {
        for (Class<?> c : List.of(producerMetadata, metadata)) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && descriptorOf(m).equals(descriptor)) {
                    return m;
                }
            }
        }
        return null;
    }

    private static boolean declares(Class<?> standIn, String name, String descriptor) {
        return Stream.of(standIn.getDeclaredMethods())
                .anyMatch(m -> !m.isBridge() && m.getName().equals(name) && descriptorOf(m).equals(descriptor));
    }

    private static String descriptorOf(Method m) {
        return MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
    }

    /**
     * Every method of {@code Metadata}/{@code ProducerMetadata} the producer's classes in {@code jar} invoke (name
     * and descriptor), with the methods that invoke it ({@code org.apache...Sender.sendProducerData}).
     */
    static Map<String, Set<String>> metadataCalls(Path jar) throws IOException {
        Map<String, Set<String>> calls = new LinkedHashMap<>();
        try (FileSystem fs = FileSystems.newFileSystem(jar)) {
            List<Path> classes;
            try (Stream<Path> walk = Files.walk(fs.getPath("/org/apache/kafka/clients"))) {
                classes = walk.filter(p -> CALLERS.matcher(p.toString().substring(1)).matches())
                        .filter(p -> !p.toString().equals("/" + PRODUCER_METADATA + ".class"))
                        .sorted().collect(Collectors.toList());
            }
            for (Path file : classes) {
                String caller = file.toString().substring(1).replace(".class", "").replace('/', '.');
                for (String[] call : invocations(Files.readAllBytes(file))) {
                    if (METADATA.contains(call[1])) {
                        calls.computeIfAbsent(call[2] + call[3], k -> new LinkedHashSet<>())
                                .add(caller + "." + call[0]);
                    }
                }
            }
        }
        return calls;
    }

    /** Every invoke instruction of a class file: {calling method, owner, name, descriptor}. */
    private static List<String[]> invocations(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        ConstantPool pool = ConstantPool.read(in, "class file");
        String[] utf = pool.utf();
        int[][] links = pool.links();
        in.readUnsignedShort(); // access
        in.readUnsignedShort(); // this
        in.readUnsignedShort(); // super
        in.skipBytes(2 * in.readUnsignedShort()); // interfaces
        int fields = in.readUnsignedShort();
        for (int f = 0; f < fields; f++) {
            in.skipBytes(6);
            skipAttributes(in);
        }
        List<String[]> out = new ArrayList<>();
        int methods = in.readUnsignedShort();
        for (int m = 0; m < methods; m++) {
            in.readUnsignedShort();
            String method = utf[in.readUnsignedShort()];
            in.readUnsignedShort();
            int attributes = in.readUnsignedShort();
            for (int a = 0; a < attributes; a++) {
                String attribute = utf[in.readUnsignedShort()];
                int length = in.readInt();
                if (!attribute.equals("Code")) {
                    in.skipBytes(length);
                    continue;
                }
                in.skipBytes(4); // max stack, max locals
                byte[] code = new byte[in.readInt()];
                in.readFully(code);
                for (int pc = 0; pc < code.length; pc += instructionLength(code, pc)) {
                    int op = code[pc] & 0xff;
                    if (op >= 0xb6 && op <= 0xb9) { // invokevirtual, invokespecial, invokestatic, invokeinterface
                        int[] ref = links[((code[pc + 1] & 0xff) << 8) | (code[pc + 2] & 0xff)];
                        int[] nameAndType = links[ref[1]];
                        out.add(new String[] {method, utf[links[ref[0]][0]], utf[nameAndType[0]], utf[nameAndType[1]]});
                    }
                }
                in.skipBytes(8 * in.readUnsignedShort()); // exception table
                skipAttributes(in);
            }
        }
        return out;
    }

    private static void skipAttributes(DataInputStream in) throws IOException {
        int attributes = in.readUnsignedShort();
        for (int a = 0; a < attributes; a++) {
            in.readUnsignedShort();
            in.skipBytes(in.readInt());
        }
    }

    /** The length of the JVM instruction at {@code pc} (JVMS 6.5). */
    private static int instructionLength(byte[] code, int pc) {
        int op = code[pc] & 0xff;
        switch (op) {
            case 0x10, 0x12, 0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3a, 0xa9, 0xbc:
                return 2;
            case 0x11, 0x13, 0x14, 0x84, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xbb, 0xbd, 0xc0, 0xc1, 0xc6, 0xc7:
                return 3;
            case 0xc5:
                return 4;
            case 0xb9, 0xba, 0xc8, 0xc9:
                return 5;
            case 0xc4:
                return (code[pc + 1] & 0xff) == 0x84 ? 6 : 4;
            case 0xaa: {
                int base = pc + 1 + (3 - (pc % 4));
                int low = readInt(code, base + 4);
                int high = readInt(code, base + 8);
                return base - pc + 12 + 4 * (high - low + 1);
            }
            case 0xab: {
                int base = pc + 1 + (3 - (pc % 4));
                return base - pc + 8 + 8 * readInt(code, base + 4);
            }
            default:
                return op >= 0x99 && op <= 0xa8 ? 3 : 1;
        }
    }

    private static int readInt(byte[] code, int at) {
        return ((code[at] & 0xff) << 24) | ((code[at + 1] & 0xff) << 16) | ((code[at + 2] & 0xff) << 8)
                | (code[at + 3] & 0xff);
    }
}
