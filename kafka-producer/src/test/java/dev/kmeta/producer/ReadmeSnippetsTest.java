package dev.kmeta.producer;

import dev.kmeta.testkit.JavaSnippets;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.tools.JavaFileObject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@code ```java} block of the repository's README.md, compiled and run against an in-process broker, so that
 * the README cannot drift from the API.
 *
 * <p>The convention for a README snippet: its {@code import} lines first (complete: nothing is imported for it), then
 * statements, as the body of a method that may throw. One line may start with {@code Properties props = ...;} (a
 * comment may follow): it stands for the user's producer config, and this test replaces it with properties pointing
 * at the test broker (bootstrap.servers, String serializers, a short max.block.ms). A snippet may use the topic
 * {@code orders} (created here with 4 partitions). A snippet that does not compile fails the test with javac's
 * diagnostics, its README line numbers included; one that throws fails it with the exception.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public class ReadmeSnippetsTest {
    static final String TOPIC = "orders";
    static final int PARTITIONS = 4;
    private static final Pattern JAVA_BLOCK = Pattern.compile("(?m)^```java[ \\t]*\\R(.*?)^```[ \\t]*$", Pattern.DOTALL);
    private static final Pattern PROPS_PLACEHOLDER = Pattern.compile("^(\\s*)Properties props = \\.\\.\\.;.*$");

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    /** The properties a snippet's {@code Properties props = ...;} line stands for (called by the compiled snippet). */
    public static Properties props() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        return props;
    }

    /** One README snippet: where it starts (the first line of its code) and its code. */
    record Snippet(int firstLine, String code) {
    }

    @Test
    void everyJavaSnippetOfTheReadmeCompilesAndRuns() throws Exception {
        Path readme = JavaSnippets.readme("kafka-producer");
        List<Snippet> snippets = extract(Files.readString(readme, StandardCharsets.UTF_8));
        assertFalse(snippets.isEmpty(), "no ```java block in " + readme);
        KAFKA.cluster().createTopic(TOPIC, PARTITIONS, 1);

        Path out = Files.createTempDirectory("readme-snippets");
        List<String> classNames = new ArrayList<>();
        List<JavaFileObject> sources = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            String name = "ReadmeSnippet" + (i + 1) + "Line" + snippets.get(i).firstLine();
            classNames.add(name);
            sources.add(JavaSnippets.source(name, wrap(name, snippets.get(i))));
        }
        JavaSnippets.compile(sources, out, "README.md");

        try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
            for (String name : classNames) {
                Method run = loader.loadClass(name).getMethod("run");
                try {
                    run.invoke(null);
                } catch (InvocationTargetException e) {
                    throw new AssertionError("README snippet " + name + " threw: " + e.getCause(), e.getCause());
                }
            }
        }
        // The KafkaProducer snippet's record reached the broker (its send() is asynchronous; close() flushed it).
        if (snippets.stream().anyMatch(s -> s.code().contains("producer.send("))) {
            assertTrue(recordsIn(TOPIC) > 0, "the README's producer snippet sent nothing to " + TOPIC);
        }
    }

    /** The README's code blocks fenced {@code ```java}, each with the README line its code starts on. */
    static List<Snippet> extract(String markdown) {
        List<Snippet> snippets = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(markdown);
        while (m.find()) {
            int firstLine = 1 + (int) markdown.substring(0, m.start(1)).chars().filter(c -> c == '\n').count();
            snippets.add(new Snippet(firstLine, m.group(1)));
        }
        return snippets;
    }

    /**
     * The snippet as a class: its imports on top, the rest as the body of {@code public static void run()}, the
     * placeholder replaced. Line for line (imports stay on their lines, the class header shares the last import's
     * line) so that javac's line numbers map back to the README by adding {@code firstLine - 1}.
     */
    static String wrap(String className, Snippet snippet) {
        JavaSnippets.Wrapped w = JavaSnippets.wrap(className, snippet.code(), PROPS_PLACEHOLDER,
                indent -> indent + "Properties props = " + ReadmeSnippetsTest.class.getName() + ".props();");
        assertTrue(w.placeholderFound() || !snippet.code().contains("props"),
                "README snippet at line " + snippet.firstLine() + " uses props without the line 'Properties props = ...;'");
        return w.java();
    }

    private static long recordsIn(String topic) throws Exception {
        Admin admin = KAFKA.cluster().admin();   // shared with the cluster: not closed here
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
                .mapToLong(info -> info.offset()).sum();
    }

    @Test
    void theSnippetWrapperKeepsReadmeLineNumbers() {
        Snippet s = extract("a\n```java\nimport java.util.List;\n\nList<String> l = List.of();\n```\n").get(0);
        assertEquals(3, s.firstLine());
        String java = wrap("X", s);
        assertEquals("List<String> l = List.of();", java.split("\n")[2]);
    }
}
