package dev.kmeta.spring;

import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.spring.example.OrdersApplication;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.kafka.core.KafkaTemplate;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README's "Spring Boot" section and the example application, against an in-process broker: the section's
 * {@code ```properties} block is the Boot context's configuration (its bootstrap servers pointed at the test broker),
 * each {@code ```java spring} block is compiled and run in that context (its line
 * {@code KafkaTemplate<String, String> template = ...;} stands for Boot's template), and {@link OrdersApplication}
 * runs as a user would run it. Both must print kmeta's diagnosis of the missing topic. (kafka-producer's
 * ReadmeSnippetsTest runs the plain {@code ```java} blocks, which need no Spring.)
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public class ReadmeAndExampleTest {
    private static final Pattern SPRING_BLOCK = Pattern.compile("(?m)^```java spring[ \\t]*\\R(.*?)^```[ \\t]*$",
            Pattern.DOTALL);
    private static final Pattern PROPERTIES_BLOCK = Pattern.compile("(?m)^```properties[ \\t]*\\R(.*?)^```[ \\t]*$",
            Pattern.DOTALL);
    private static final Pattern TEMPLATE_PLACEHOLDER =
            Pattern.compile("^(\\s*)KafkaTemplate<String, String> template = \\.\\.\\.;.*$");
    private static final String MAX_BLOCK_MS = "3000";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    private static volatile KafkaTemplate<String, String> template;

    /** What a snippet's {@code KafkaTemplate<String, String> template = ...;} line stands for. */
    public static KafkaTemplate<String, String> template() {
        return template;
    }

    @BeforeAll
    static void topics() {
        KAFKA.cluster().createTopic("orders", 1, 1);
    }

    @Test
    void theSpringBootSectionsSnippetsRunInABootContext() throws Exception {
        String readme = Files.readString(readme(), StandardCharsets.UTF_8);
        String section = readme.substring(readme.indexOf("## Spring Boot"));
        section = section.substring(0, section.indexOf("\n## ", 1));
        List<String> properties = new ArrayList<>();
        Matcher pm = PROPERTIES_BLOCK.matcher(section);
        assertTrue(pm.find(), "no ```properties block in the README's Spring Boot section");
        for (String line : pm.group(1).split("\\R")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                properties.add(line.startsWith("spring.kafka.bootstrap-servers=")
                        ? "spring.kafka.bootstrap-servers=" + KAFKA.bootstrapServers() : line);
            }
        }
        properties.add("spring.kafka.producer.properties[max.block.ms]=" + MAX_BLOCK_MS);

        List<String> snippets = new ArrayList<>();
        List<Integer> lines = new ArrayList<>();
        Matcher m = SPRING_BLOCK.matcher(readme);
        while (m.find()) {
            snippets.add(m.group(1));
            lines.add(1 + (int) readme.substring(0, m.start(1)).chars().filter(c -> c == '\n').count());
        }
        assertFalse(snippets.isEmpty(), "no ```java spring block in README.md");

        SpringIt.boot().withPropertyValues(properties.toArray(String[]::new)).run(context -> {
            @SuppressWarnings("unchecked")
            KafkaTemplate<String, String> t = context.getBean(KafkaTemplate.class);
            template = t;
            try {
                String out = printed(() -> {
                    runSnippets(snippets, lines);
                    return null;
                });
                assertTrue(out.contains("TOPIC_NOT_FOUND: "), "the README snippet printed no diagnosis: " + out);
            } finally {
                template = null;
            }
            // the section's kmeta.* key reached kmeta through spring.kafka.producer.properties
            List<KafkaMetadata> instances = context.getBean(KmetaProducerFactory.class).kmetaInstances();
            assertEquals(1, instances.size());
            assertEquals(List.of("orders"), instances.get(0).config().prefetchTopics());
        });
    }

    @Test
    void theExampleApplicationPrintsTheMissingTopicsDiagnosis() throws Exception {
        String out = printed(() -> {
            OrdersApplication.main(new String[] {"--spring.kafka.bootstrap-servers=" + KAFKA.bootstrapServers(),
                    "--spring.kafka.producer.properties[max.block.ms]=" + MAX_BLOCK_MS, "--spring.main.banner-mode=off"});
            return null;
        });
        assertTrue(out.contains("order-1 sent to orders-0@"), out);
        assertTrue(out.contains("order-2 not sent: TOPIC_NOT_FOUND: "), out);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertEquals(List.of(), SpringIt.kmetaThreads(""), "the closed application left kmeta threads"));
    }

    /** What {@code work} printed on System.out (printed there too). */
    private static String printed(Callable<Void> work) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                copy.write(b);
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                copy.write(b, off, len);
                original.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8);
        System.setOut(tee);
        try {
            work.call();
        } finally {
            System.setOut(original);
        }
        return copy.toString(StandardCharsets.UTF_8);
    }

    private static void runSnippets(List<String> snippets, List<Integer> lines) throws Exception {
        Path out = Files.createTempDirectory("readme-spring-snippets");
        List<String> names = new ArrayList<>();
        List<JavaFileObject> sources = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            String name = "ReadmeSpringSnippet" + (i + 1) + "Line" + lines.get(i);
            names.add(name);
            sources.add(source(name, wrap(name, snippets.get(i), lines.get(i))));
        }
        compile(sources, out);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()},
                ReadmeAndExampleTest.class.getClassLoader())) {
            for (String name : names) {
                try {
                    loader.loadClass(name).getMethod("run").invoke(null);
                } catch (InvocationTargetException e) {
                    throw new AssertionError("README snippet " + name + " threw: " + e.getCause(), e.getCause());
                }
            }
        }
    }

    /** The snippet as a class, line for line: imports first, the rest the body of {@code run()}. */
    private static String wrap(String className, String code, int firstLine) {
        String[] lines = code.split("\\R", -1);
        int lastImport = -1;
        for (int i = 0; i < lines.length; i++) {
            String t = lines[i].trim();
            if (t.startsWith("import ")) {
                lastImport = i;
            } else if (!t.isEmpty() && !t.startsWith("//")) {
                break;
            }
        }
        String header = "public class " + className + " { public static void run() throws Exception { ";
        StringBuilder java = new StringBuilder();
        boolean placeholder = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher p = TEMPLATE_PLACEHOLDER.matcher(line);
            if (i > lastImport && p.matches()) {
                line = p.group(1) + "KafkaTemplate<String, String> template = "
                        + ReadmeAndExampleTest.class.getName() + ".template();";
                placeholder = true;
            }
            if (lastImport < 0 && i == 0) {
                java.append(header);
            }
            java.append(line);
            if (i == lastImport) {
                java.append(' ').append(header);
            }
            java.append('\n');
        }
        assertTrue(placeholder, "README snippet at line " + firstLine
                + " lacks the line 'KafkaTemplate<String, String> template = ...;'");
        return java.append("}}\n").toString();
    }

    private static JavaFileObject source(String className, String code) {
        return new SimpleJavaFileObject(URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return code;
            }
        };
    }

    private static void compile(List<JavaFileObject> sources, Path out) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertTrue(javac != null, "no system Java compiler (running on a JRE?)");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("-classpath", classPath(), "-d", out.toString(), "-proc:none",
                    "--release", "17", "-Xlint:deprecation,unchecked,rawtypes,removal", "-Werror");
            if (!javac.getTask(null, files, diagnostics, options, null, sources).call()) {
                StringBuilder why = new StringBuilder("README spring snippets do not compile:\n");
                for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                    String name = d.getSource() == null ? "?" : d.getSource().getName();
                    Matcher line = Pattern.compile("Line(\\d+)\\.java$").matcher(name);
                    long readmeLine = line.find() ? Long.parseLong(line.group(1)) + d.getLineNumber() - 1 : -1;
                    why.append("  README.md:").append(readmeLine).append(": ").append(d.getKind()).append(": ")
                            .append(d.getMessage(Locale.ROOT)).append('\n');
                }
                fail(why.toString());
            }
        }
    }

    /** The test class path; expanded when surefire runs the tests from a manifest-only jar. */
    private static String classPath() throws IOException {
        String cp = System.getProperty("java.class.path");
        String[] entries = cp.split(File.pathSeparator);
        if (entries.length == 1 && entries[0].endsWith(".jar")) {
            try (JarFile jar = new JarFile(entries[0])) {
                Manifest manifest = jar.getManifest();
                String manifestCp = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
                if (manifestCp != null) {
                    List<String> expanded = new ArrayList<>();
                    for (String url : manifestCp.trim().split("\\s+")) {
                        expanded.add(Path.of(URI.create(new File(entries[0]).toURI().resolve(url).toString()))
                                .toString());
                    }
                    return String.join(File.pathSeparator, expanded);
                }
            }
        }
        return cp;
    }

    /** README.md of the repository, above the module's basedir. */
    private static Path readme() {
        String basedir = System.getProperty("basedir", System.getProperty("user.dir"));
        for (Path dir = Path.of(basedir).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path readme = dir.resolve("README.md");
            if (Files.isRegularFile(readme) && Files.isRegularFile(dir.resolve("spring").resolve("pom.xml"))) {
                return readme;
            }
        }
        throw new AssertionError("README.md of the repository not found above " + basedir);
    }
}
