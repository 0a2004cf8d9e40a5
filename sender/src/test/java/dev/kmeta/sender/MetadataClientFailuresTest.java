package dev.kmeta.sender;

import dev.kmeta.metadata.MetadataException;
import dev.kmeta.metadata.TopicException;
import dev.kmeta.metadata.internal.Failures;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * {@code MetadataClient}'s "Failures" list says what {@code KafkaMetadata} throws for each of kmeta's exceptions
 * (issue 25: the exported interface documented kmeta's exceptions while its one public implementation throws Kafka's).
 * This test reads the list from the interface's source and compares it with {@link KafkaErrors}, through which every
 * {@code KafkaMetadata} call converts: a changed conversion or a changed list fails here.
 */
class MetadataClientFailuresTest {
    private static final Path SOURCE = Path.of("../metadata/src/main/java/dev/kmeta/metadata/MetadataClient.java");
    private static final Pattern ROW = Pattern.compile("<li>\\{@link (\\w+)}:(.*?)</li>", Pattern.DOTALL);
    private static final Pattern NAME = Pattern.compile("\\{@code (\\w+Exception)}");

    @Test
    void theDocumentedListIsWhatKafkaMetadataThrows() throws IOException {
        assertEquals(thrown(), documented());
    }

    @Test
    void kmetasExceptionStaysTheCause() {
        for (MetadataException e : failures().get("MetadataTimeoutException")) {
            assertSame(e, KafkaErrors.toKafka(e).getCause());
        }
    }

    private static Map<String, Set<String>> documented() throws IOException {
        String doc = Files.readString(SOURCE).replaceAll("\n\\s*\\* ?", " ");
        Map<String, Set<String>> rows = new TreeMap<>();
        Matcher row = ROW.matcher(doc);
        while (row.find()) {
            Set<String> names = new TreeSet<>();
            Matcher name = NAME.matcher(row.group(2));
            while (name.find()) {
                names.add(name.group(1));
            }
            rows.put(row.group(1), names);
        }
        return rows;
    }

    /** Per kmeta exception, the Kafka exceptions it becomes and their Kafka superclasses below KafkaException. */
    private static Map<String, Set<String>> thrown() {
        Map<String, Set<String>> rows = new TreeMap<>();
        failures().forEach((kmeta, variants) -> {
            Set<String> names = new TreeSet<>();
            for (MetadataException e : variants) {
                names.add(KafkaErrors.toKafka(e).getClass().getSimpleName());
            }
            if (names.contains("KafkaMetadataTimeoutException")) {
                names.add("TimeoutException"); // listed as what it is to a producer's catch
            }
            rows.put(kmeta, names);
        });
        return rows;
    }

    private static Map<String, List<MetadataException>> failures() {
        Failures.Factory f = Failures.make();
        Map<String, List<MetadataException>> all = new TreeMap<>();
        all.put("MetadataTimeoutException", List.of(f.timeout("late", null)));
        all.put("MetadataInterruptedException", List.of(f.interrupted("interrupted")));
        List<MetadataException> topics = new ArrayList<>();
        for (TopicException.Reason r : TopicException.Reason.values()) {
            topics.add(f.topic("t", r, "refused", null));
        }
        all.put("TopicException", topics);
        all.put("MetadataFatalException", List.of(f.fatal("sasl", new SaslAuthenticationException("x"), null),
                f.fatal("ssl", new SslAuthenticationException("x"), null),
                f.fatal("auth", new AuthenticationException("x"), null),
                f.fatal("version", new UnsupportedVersionException("x"), null),
                f.fatal("other", new IllegalStateException("x"), null)));
        all.put("MetadataClosedException", List.of(f.closed("closed")));
        all.put("TooManyTopicsException", List.of(f.tooManyTopics("too many")));
        return all;
    }
}
