package dev.kmeta.spring;

import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.spring.example.OrdersApplication;
import dev.kmeta.testkit.JavaSnippets;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.kafka.core.KafkaTemplate;

import javax.tools.JavaFileObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        String readme = Files.readString(JavaSnippets.readme("spring"), StandardCharsets.UTF_8);
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
                assertEquals(1, context.getBean(SpringIt.SendFailures.class).seen.size(), "Spring's listener saw it");
            } finally {
                template = null;
            }
            // the section's kmeta.* key reached kmeta through spring.kafka.producer.properties
            KmetaProducerFactory<?, ?> factory = context.getBean(KmetaProducerFactory.class);
            List<KafkaMetadata> instances = factory.kmetaInstances();
            assertEquals(1, instances.size());
            assertEquals(List.of("orders"), instances.get(0).config().prefetchTopics());
        });
    }

    /**
     * docs/spring.md's {@code application.properties} (its bootstrap servers pointed at the test broker) starts a Boot
     * context whose producers get its max.block.ms and whose kmeta instance its prefetch topics; a missing topic fails
     * within that max.block.ms with kmeta's diagnosis. (The management.* lines need Actuator's web endpoints, which
     * this module does not have: they are only shown to be accepted.)
     */
    @Test
    void theSpringPagesApplicationPropertiesWork() throws Exception {
        String page = Files.readString(JavaSnippets.readme("spring").resolveSibling("docs").resolve("spring.md"),
                StandardCharsets.UTF_8);
        Matcher pm = PROPERTIES_BLOCK.matcher(page);
        assertTrue(pm.find(), "no ```properties block in docs/spring.md");
        List<String> properties = new ArrayList<>();
        for (String line : pm.group(1).split("\\R")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                assertFalse(line.contains(" #"), "a comment after a value is part of the value: " + line);
                properties.add(line.startsWith("spring.kafka.bootstrap-servers=")
                        ? "spring.kafka.bootstrap-servers=" + KAFKA.bootstrapServers() : line);
            }
        }
        assertTrue(properties.contains("management.endpoint.health.show-details=always"), properties.toString());
        assertTrue(properties.stream().anyMatch(p -> p.startsWith("management.endpoints.web.exposure.include=health")),
                properties.toString());
        SpringIt.boot().withPropertyValues(properties.toArray(String[]::new)).run(context -> {
            KmetaProducerFactory<?, ?> factory = context.getBean(KmetaProducerFactory.class);
            assertEquals("5000", String.valueOf(factory.getConfigurationProperties().get("max.block.ms")));
            @SuppressWarnings("unchecked")
            KafkaTemplate<String, String> t = context.getBean(KafkaTemplate.class);
            assertTrue(t.send("orders", "k", "v").get(30, TimeUnit.SECONDS).getRecordMetadata().offset() >= 0);
            assertEquals(List.of("orders"), factory.kmetaInstances().get(0).config().prefetchTopics());
            long startNs = System.nanoTime();
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                    () -> t.send("no-such-topic", "k", "v").get(30, TimeUnit.SECONDS));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertTrue(dev.kmeta.metadata.Diagnosis.from(e).isPresent(), "kmeta's diagnosis: " + e);
            assertEquals(1, context.getBean(SpringIt.SendFailures.class).seen.size(), "Spring's listener saw it");
            assertTrue(ms < 15_000, "within max.block.ms (5 s), not 60 s: " + ms + " ms");
        });
    }

    @Test
    void theExampleApplicationPrintsTheMissingTopicsDiagnosis() throws Exception {
        String out = printed(() -> {
            OrdersApplication.main(new String[] {"--spring.kafka.bootstrap-servers=" + KAFKA.bootstrapServers(),
                    "--spring.kafka.producer.properties[max.block.ms]=" + MAX_BLOCK_MS, "--spring.main.banner-mode=off",
                    // the application prints order-2's failure (asserted below); Spring's listener would log it
                    // again with its stack trace, and Boot its start-up lines
                    "--logging.level.org.springframework.kafka.support.LoggingProducerListener=off",
                    "--spring.main.log-startup-info=false"});
            return null;
        });
        assertTrue(out.contains("order-1 sent to orders-0@"), out);
        assertTrue(out.contains("order-2 not sent: TOPIC_NOT_FOUND: "), out);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertEquals(List.of(), SpringIt.kmetaThreads(""), "the closed application left kmeta threads"));
    }

    /** What {@code work} printed on System.out (kept out of the build log: the assertions show it). */
    private static String printed(Callable<Void> work) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        System.setOut(new PrintStream(copy, true, StandardCharsets.UTF_8));
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
            sources.add(JavaSnippets.source(name, wrap(name, snippets.get(i), lines.get(i))));
        }
        JavaSnippets.compile(sources, out, "README.md (spring)");
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
        JavaSnippets.Wrapped w = JavaSnippets.wrap(className, code, TEMPLATE_PLACEHOLDER,
                indent -> indent + "KafkaTemplate<String, String> template = " + ReadmeAndExampleTest.class.getName()
                        + ".template();");
        assertTrue(w.placeholderFound(), "README snippet at line " + firstLine
                + " lacks the line 'KafkaTemplate<String, String> template = ...;'");
        return w.java();
    }
}
