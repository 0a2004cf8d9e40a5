package dev.kmeta.producer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The module descriptors at run time: a child JVM with kmeta's four library modules, kafka-clients (the automatic
 * module {@code kafka.clients}), slf4j and jctools on the module path starts a {@code KafkaMetadata} and a
 * {@code KmetaProducer} (kafka-clients instantiates kmeta's interceptor by class name, through the qualified export to
 * {@code kafka.clients}), and sees the {@code internal} packages exported to kmeta's modules only - kmeta.producer's to
 * {@code kafka.clients} only, the packages under it to none. The other tests run on the class path (surefire's
 * {@code useModulePath=false}); this one is what would fail if a descriptor missed a {@code requires} or an export that
 * a run on the module path needs. No broker: the bootstrap address refuses.
 */
class ModulePathSmokeTest {
    private static final String SMOKE = """
            import dev.kmeta.metadata.Deadline;
            import dev.kmeta.producer.KmetaProducer;
            import dev.kmeta.sender.KafkaMetadata;
            import java.util.Map;

            public class Smoke {
                public static void main(String[] args) {
                    Module sender = KafkaMetadata.class.getModule();
                    Module metadata = Deadline.class.getModule();
                    check("kmeta.sender".equals(sender.getName()), "kmeta.sender is a named module: " + sender);
                    check(!metadata.isExported("dev.kmeta.metadata.internal"), "metadata.internal is exported to all");
                    check(metadata.isExported("dev.kmeta.metadata.internal", sender), "kmeta.sender cannot read it");
                    check(!sender.isExported("dev.kmeta.sender.internal"), "sender.internal is exported");
                    Module producer = KmetaProducer.class.getModule();
                    Module kafka = org.apache.kafka.clients.producer.KafkaProducer.class.getModule();
                    for (String p : producer.getPackages()) { // the API to all, internal to kafka-clients only
                        boolean api = p.equals("dev.kmeta.producer");
                        check(producer.isExported(p) == api, p + (api ? " is not exported" : " is exported to all"));
                        check(producer.isExported(p, kafka) == (api || p.equals("dev.kmeta.producer.internal")),
                                p + " is exported to kafka.clients: " + producer.isExported(p, kafka));
                    }
                    Map<String, Object> props = Map.of("bootstrap.servers", "127.0.0.1:1", "client.id", "module-path",
                            "key.serializer", "org.apache.kafka.common.serialization.StringSerializer",
                            "value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
                    try (KafkaMetadata m = KafkaMetadata.create(props)) {
                        check(m.stats().requestsSent() >= 0, "stats");
                    }
                    KmetaProducer.create(props).close();
                    System.out.println("MODULE-PATH-OK");
                }

                private static void check(boolean ok, String what) {
                    if (!ok) {
                        throw new AssertionError(what);
                    }
                }
            }
            """;

    @Test
    void kmetaRunsOnTheModulePath(@TempDir Path dir) throws Exception {
        Path source = Files.writeString(dir.resolve("Smoke.java"), SMOKE);
        List<String> modulePath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            String name = p.getFileName().toString();
            if (isKmetaModule(p) || name.startsWith("kafka-clients-") || name.startsWith("slf4j-api-")
                    || name.startsWith("jctools-core-")) {
                modulePath.add(entry);
            }
        }
        Path log = dir.resolve("out.txt");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path", String.join(File.pathSeparator, modulePath), "--add-modules", "kmeta.producer",
                source.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child JVM did not end");
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, child.exitValue(), out);
        assertTrue(out.contains("MODULE-PATH-OK"), out);
        assertEquals(4, modulePath.stream().filter(e -> isKmetaModule(Path.of(e))).count(), "kmeta's modules: "
                + modulePath);
    }

    /** A directory or jar with a module descriptor of kmeta's ({@code kmeta.*}). */
    private static boolean isKmetaModule(Path p) {
        try {
            if (Files.isDirectory(p)) {
                return isKmetaDescriptor(p.resolve("module-info.class"));
            }
            if (!p.toString().endsWith(".jar") || !Files.exists(p)) {
                return false;
            }
            try (FileSystem jar = FileSystems.newFileSystem(p)) {
                return isKmetaDescriptor(jar.getPath("module-info.class"));
            }
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean isKmetaDescriptor(Path info) throws IOException {
        if (!Files.exists(info)) {
            return false;
        }
        try (InputStream in = Files.newInputStream(info)) {
            return ModuleDescriptor.read(in).name().startsWith("kmeta.");
        }
    }
}
