package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConfigException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.Failures;
import org.apache.kafka.common.KafkaException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The settings kafka-clients reads when it builds a network client's channels (TLS stores, the SASL login), made into
 * kmeta's {@link ConfigException} naming the key, and for a store the file: kafka-clients' own failure says only
 * {@code Failed to create new NetworkClient} on top and names no key, and for a missing store file it logs an ERROR
 * with a stack trace first. Store files are checked before kafka-clients opens them; any other failure is translated
 * after, keeping kafka-clients' exception as the cause. Secrets (passwords, {@code sasl.jaas.config}) are never put
 * in a message. Stateless; thread-safe.
 */
final class ChannelSettings {
    /** The store locations kafka-clients' default SSL engine factory opens, trust store first. */
    static final List<String> STORE_KEYS = List.of("ssl.truststore.location", "ssl.keystore.location");
    private static final Pattern LOAD_FAILED = Pattern.compile("Failed to load SSL keystore (.+) of type (\\S+)");
    private static final String JAAS_CONFIG = "sasl.jaas.config";
    /** An option's value in a JAAS configuration: {@code key="value"} or {@code key=value}. */
    private static final Pattern JAAS_VALUE = Pattern.compile("=\\s*(?:\"([^\"]*)\"|([^\\s;\"]+))");
    private static final Pattern KAFKA_CONFIG_KEY = Pattern.compile("for configuration (\\S+?):?\\s");

    private ChannelSettings() {
    }

    /**
     * Checks that the trust store and key store files given exist and can be read, when the protocol uses TLS and
     * kafka-clients' own engine factory opens them.
     *
     * @throws ConfigException naming the key and the file, e.g. {@code ssl.truststore.location=/x: file not found}
     */
    static void checkStoreFiles(MetadataConfig config) {
        if (!usesTls(config) || config.originals().get("ssl.engine.factory.class") != null) {
            return;
        }
        for (String key : STORE_KEYS) {
            Object value = config.originals().get(key);
            if (value == null || value.toString().isBlank()) {
                continue;
            }
            String location = value.toString().trim();
            String problem;
            IOException cause = null;
            try {
                Path path = Path.of(location);
                if (!Files.exists(path)) {
                    problem = "file not found";
                    cause = new NoSuchFileException(location);
                } else if (Files.isDirectory(path)) {
                    problem = "a directory, not a " + storeName(key) + " file";
                } else if (!Files.isReadable(path)) {
                    problem = "not readable by this user (check the file's permissions)";
                } else {
                    continue;
                }
            } catch (InvalidPathException e) {
                problem = "not a file name: " + e.getMessage();
            }
            throw Failures.make().config(key, key + "=" + location + ": " + problem, cause);
        }
    }

    /** kafka-clients' failure to build the network client, as kmeta's ConfigException naming the key at fault. */
    static ConfigException explain(MetadataConfig config, KafkaException failure) {
        String root = rootMessage(failure);
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = t.getMessage() == null ? "" : t.getMessage();
            Matcher load = LOAD_FAILED.matcher(message);
            if (load.find()) {
                String key = storeKeyFor(config, load.group(1));
                String prefix = key.substring(0, key.lastIndexOf('.'));
                return Failures.make().config(key, key + "=" + load.group(1) + ": cannot load it as a " + load.group(2)
                        + " " + storeName(key) + ": " + root + " (check " + prefix + ".type and " + prefix
                        + ".password)", failure);
            }
            if (message.contains("JAAS") || t instanceof javax.security.auth.login.LoginException) {
                return Failures.make().config(JAAS_CONFIG, JAAS_CONFIG + ": " + withoutJaasValues(config,
                        t instanceof javax.security.auth.login.LoginException ? root : message), failure);
            }
            if (t instanceof org.apache.kafka.common.config.ConfigException) {
                Matcher key = KAFKA_CONFIG_KEY.matcher(message + " ");
                return Failures.make().config(key.find() ? key.group(1) : MetadataConfig.SECURITY_PROTOCOL, message,
                        failure);
            }
        }
        return Failures.make().config(MetadataConfig.SECURITY_PROTOCOL, "cannot build the network client for "
                + MetadataConfig.SECURITY_PROTOCOL + "=" + config.securityProtocol() + ": " + root, failure);
    }

    /**
     * {@code message} with every option value of {@code sasl.jaas.config} (the password among them) that it quotes
     * replaced by {@code <hidden>}: kafka-clients' parser quotes the token it stumbled on.
     */
    private static String withoutJaasValues(MetadataConfig config, String message) {
        Object jaas = config.originals().get(JAAS_CONFIG);
        if (jaas instanceof org.apache.kafka.common.config.types.Password) {
            jaas = ((org.apache.kafka.common.config.types.Password) jaas).value();
        }
        if (jaas == null) {
            return message;
        }
        String result = message;
        Matcher value = JAAS_VALUE.matcher(jaas.toString());
        while (value.find()) {
            String secret = value.group(1) != null ? value.group(1) : value.group(2);
            if (!secret.isEmpty()) {
                result = result.replace(secret, "<hidden>");
            }
        }
        return result;
    }

    private static boolean usesTls(MetadataConfig config) {
        String protocol = config.securityProtocol().toUpperCase(Locale.ROOT);
        return protocol.equals("SSL") || protocol.equals("SASL_SSL");
    }

    /** The store key whose value is {@code location} (the trust store when both are), else the trust store's. */
    private static String storeKeyFor(MetadataConfig config, String location) {
        for (String key : STORE_KEYS) {
            Object value = config.originals().get(key);
            if (value != null && value.toString().trim().equals(location.trim())) {
                return key;
            }
        }
        return STORE_KEYS.get(0);
    }

    private static String storeName(String key) {
        return key.startsWith("ssl.truststore") ? "trust store" : "key store";
    }

    /** The innermost message of the chain, with its type when the message alone says little. */
    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        for (Throwable t = failure.getCause(); t != null && t != root; t = t.getCause()) {
            root = t;
        }
        String message = root.getMessage();
        if (message == null || message.isBlank()) {
            return root.getClass().getSimpleName();
        }
        return root instanceof IOException && !(root instanceof NoSuchFileException) ? message
                : root.getClass().getSimpleName() + ": " + message;
    }
}
