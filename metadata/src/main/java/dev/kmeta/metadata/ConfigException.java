package dev.kmeta.metadata;

/**
 * A configuration value kmeta cannot use: thrown when a {@link MetadataConfig} is built, or when an instance starts
 * and kafka-clients cannot build the network client on the security settings (then the message names the key and,
 * for a store file, the file: {@code ssl.truststore.location=/etc/kafka/trust.jks: file not found}), never later.
 *
 * <p>The message names the key, the value given and what is accepted, in Kafka's own form:
 * {@code Invalid value -5 for configuration retry.backoff.ms: must be >= 0}. It is an
 * {@link IllegalArgumentException}, so callers that do not know kmeta's types still catch it.
 */
public final class ConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The configuration key at fault. */
    private final String key;

    /**
     * A bad value for a key.
     *
     * @param key         the configuration key
     * @param value       the value given (printed as is; never pass a secret)
     * @param requirement what is accepted, e.g. {@code "must be >= 0"}
     */
    ConfigException(String key, Object value, String requirement) {
        super("Invalid value " + value + " for configuration " + key + ": " + requirement);
        this.key = key;
    }

    /**
     * A problem with a key that has no single bad value (missing, or in conflict with another key).
     *
     * @param key     the configuration key
     * @param message the whole message, which must name the key
     */
    ConfigException(String key, String message) {
        super(message);
        this.key = key;
    }

    /**
     * A setting kafka-clients could not use when kmeta built its network client on it (a trust store file that is not
     * there, a JAAS configuration that does not parse...): thrown by the sender when an instance starts.
     *
     * @param key     the configuration key
     * @param message the whole message, which must name the key (and never a secret)
     * @param cause   kafka-clients' failure, or the I/O error that shows the problem
     */
    ConfigException(String key, String message, Throwable cause) {
        super(message, cause);
        this.key = key;
    }

    /** The configuration key at fault, e.g. {@code retry.backoff.ms}. */
    public String key() {
        return key;
    }
}
