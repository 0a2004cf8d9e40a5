package dev.kmeta.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * picocli converters for kmeta's option values: each rejects bad input with one line naming the problem, which
 * picocli reports as a usage error (exit 2). Stateless and thread-safe.
 */
final class Converters {
    /** Kafka's limit on topic name length. */
    static final int MAX_TOPIC_LENGTH = 249;
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]+");

    private Converters() {
    }

    /** A topic name by Kafka's rules: {@code [a-zA-Z0-9._-]}, 1..249 characters, not {@code .} or {@code ..}. */
    static final class TopicName implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String problem = topicNameProblem(value);
            if (problem != null) {
                throw new TypeConversionException("'" + value + "' is not a valid topic name: " + problem);
            }
            return value;
        }
    }

    /** Why a topic name is illegal, or null when it is legal. */
    static String topicNameProblem(String name) {
        if (name.isEmpty()) {
            return "it is empty";
        }
        if (name.equals(".") || name.equals("..")) {
            return "'.' and '..' are not allowed";
        }
        if (name.length() > MAX_TOPIC_LENGTH) {
            return "it has " + name.length() + " characters, at most " + MAX_TOPIC_LENGTH + " are allowed";
        }
        if (!LEGAL_TOPIC.matcher(name).matches()) {
            return "only ASCII letters, digits, '.', '_' and '-' are allowed";
        }
        return null;
    }

    /** {@code [PROTOCOL://]host:port[,...]}. */
    static final class BootstrapServers implements ITypeConverter<Bootstrap> {
        @Override
        public Bootstrap convert(String value) {
            try {
                return new Bootstrap(HostPort.parseList(value));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage().contains("[PROTOCOL://]host:port") ? e.getMessage()
                        : e.getMessage() + " (expected [PROTOCOL://]host:port[,...])");
            }
        }
    }

    /** A properties file, read at once: a missing or unreadable file is a usage error naming the path. */
    static final class PropertiesFile implements ITypeConverter<ClientConfigFile> {
        @Override
        public ClientConfigFile convert(String value) {
            Path path = Path.of(value);
            if (!Files.isRegularFile(path)) {
                throw new TypeConversionException("cannot read " + path + ": " + (Files.exists(path)
                        ? "not a regular file" : "no such file"));
            }
            Properties props = new Properties();
            try (Reader reader = Files.newBufferedReader(path)) {
                props.load(reader);
            } catch (IOException | IllegalArgumentException e) {
                throw new TypeConversionException("cannot read " + path + ": " + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : " " + e.getMessage()));
            }
            Map<String, String> values = new LinkedHashMap<>();
            for (String key : props.stringPropertyNames()) {
                values.put(key, props.getProperty(key).trim());
            }
            return new ClientConfigFile(path, values);
        }
    }

    /**
     * The addresses of a {@code --bootstrap-server} option (one value, comma-separated). Immutable.
     *
     * @param addresses the addresses, in the order given
     */
    record Bootstrap(List<HostPort> addresses) {
        Bootstrap {
            addresses = List.copyOf(addresses);
        }
    }

    /**
     * The client properties of a {@code --command-config} file. Immutable.
     *
     * @param path   where it was read from
     * @param values its keys and values (may hold credentials: never print them)
     */
    record ClientConfigFile(Path path, Map<String, String> values) {
        ClientConfigFile {
            values = Map.copyOf(values);
        }

        @Override
        public String toString() {
            return "ClientConfigFile(" + path + ", " + values.size() + " keys)";
        }
    }
}
