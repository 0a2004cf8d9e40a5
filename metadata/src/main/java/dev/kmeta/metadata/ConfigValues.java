package dev.kmeta.metadata;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads typed, validated values out of a user's property map, for {@link MetadataConfig}.
 *
 * <p>Values may be given as {@code String} (from a properties file: trimmed), {@code Number} or {@code Boolean}, and
 * lists as a {@code Collection} of strings or a comma-separated string. Every failure is a {@link ConfigException}
 * naming the key, the value and what is accepted. Not thread-safe; used once, during construction.
 */
final class ConfigValues {
    /**
     * Kafka's bootstrap address form: an optional {@code protocol://} prefix (Kafka tolerates it), then a host name or
     * IPv4 address, or an IPv6 address in brackets, then {@code :port}.
     */
    private static final Pattern HOST_PORT = Pattern.compile(
            "^(?:[0-9A-Za-z\\-%._]*://)?(?:\\[([0-9A-Za-z\\-%._:]+)]|([0-9A-Za-z\\-%._]+)):([0-9]{1,5})$");

    /** Key fragments whose values {@code toString()} hides. Generous on purpose: hiding too much costs nothing. */
    private static final String[] SECRET_MARKERS = {
        "password", "passwd", "passphrase", "secret", "token", "credential", "jaas", "ssl.key", "private",
        "oauthbearer", "apikey", "api.key", "api_key", "user.info", "keytab",
    };

    private static final Pattern TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    private static final Logger LOG = LoggerFactory.getLogger(MetadataConfig.class);
    /** The {@code n} of generated client ids {@code kmeta-<n>}: configurations built in this JVM, from 1. */
    private static final AtomicLong CLIENT_ID_SEQUENCE = new AtomicLong(1);

    /** A base and a maximum that {@link #pair} has reconciled: {@code base <= max}. */
    record Pair(long base, long max) { }

    private final Map<String, Object> props;

    ConfigValues(Map<String, Object> props) {
        this.props = props;
    }

    /** Whether the user gave the key (a known key never maps to null: see {@link #raw}). */
    boolean isSet(String key) {
        return props.containsKey(key);
    }

    /** A whole number in {@code [min, Long.MAX_VALUE]}, or the default when absent. */
    long longAtLeast(String key, long defaultValue, long min) {
        return longBetween(key, defaultValue, min, Long.MAX_VALUE);
    }

    /** A whole number in {@code [min, max]}, or the default when absent. */
    long longBetween(String key, long defaultValue, long min, long max) {
        Object value = raw(key);
        if (value == null) {
            return defaultValue;
        }
        String requirement = "must be a whole number " + range(min, max);
        long parsed = toLong(key, value, requirement);
        if (parsed < min || parsed > max) {
            throw new ConfigException(key, value, requirement);
        }
        return parsed;
    }

    /** A whole number in {@code [min, max]} that fits an int, or the default when absent. */
    int intBetween(String key, int defaultValue, int min, int max) {
        return (int) longBetween(key, defaultValue, min, max);
    }

    /** A number (fractions allowed) in {@code [min, max]}, or the default when absent. */
    double doubleBetween(String key, double defaultValue, double min, double max) {
        Object value = raw(key);
        if (value == null) {
            return defaultValue;
        }
        String requirement = "must be a number between " + min + " and " + max + " inclusive";
        double parsed;
        if (value instanceof Number) {
            parsed = ((Number) value).doubleValue();
        } else if (value instanceof String) {
            try {
                parsed = Double.parseDouble(((String) value).trim());
            } catch (NumberFormatException e) {
                throw new ConfigException(key, value, requirement);
            }
        } else {
            throw new ConfigException(key, value, requirement);
        }
        if (!(parsed >= min && parsed <= max)) { // also rejects NaN
            throw new ConfigException(key, value, requirement);
        }
        return parsed;
    }

    /** {@code true} or {@code false} (a Boolean, or a string in any case), or the default when absent. */
    boolean bool(String key, boolean defaultValue) {
        Object value = raw(key);
        if (value == null) {
            return defaultValue;
        }
        if (value instanceof Boolean) {
            return (Boolean) value;
        }
        if (value instanceof String) {
            String s = ((String) value).trim();
            if (s.equalsIgnoreCase("true")) {
                return true;
            }
            if (s.equalsIgnoreCase("false")) {
                return false;
            }
        }
        throw new ConfigException(key, value, "must be true or false");
    }

    /** A trimmed string, or null when absent. */
    String string(String key) {
        Object value = raw(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String)) {
            throw new ConfigException(key, value, "must be a string");
        }
        return ((String) value).trim();
    }

    /**
     * One of an enum's constants, given as the constant itself or as its configuration name in any case.
     *
     * @param configName the configuration spelling of a constant
     */
    <E extends Enum<E>> E choice(String key, E defaultValue, Class<E> type, Function<E, String> configName) {
        Object value = raw(key);
        if (value == null) {
            return defaultValue;
        }
        if (type.isInstance(value)) {
            return type.cast(value);
        }
        if (value instanceof String) {
            String s = ((String) value).trim();
            for (E constant : type.getEnumConstants()) {
                if (configName.apply(constant).equalsIgnoreCase(s)) {
                    return constant;
                }
            }
        }
        List<String> names = new ArrayList<>();
        for (E constant : type.getEnumConstants()) {
            names.add(configName.apply(constant));
        }
        throw new ConfigException(key, value, "must be one of " + String.join(", ", names) + " (case insensitive)");
    }

    /**
     * A list of bootstrap addresses, each validated as {@code host:port} and kept as written (trimmed); empty entries
     * are skipped, as Kafka does. An absent key gives an empty list.
     */
    List<String> addresses(String key) {
        Object value = raw(key);
        List<String> entries = new ArrayList<>();
        if (value == null) {
            return entries;
        } else if (value instanceof String) {
            entries.addAll(List.of(((String) value).split(",", -1)));
        } else if (value instanceof Collection) {
            for (Object entry : (Collection<?>) value) {
                if (!(entry instanceof String)) {
                    throw new ConfigException(key, entry, "must be a list of host:port strings");
                }
                entries.add((String) entry);
            }
        } else {
            throw new ConfigException(key, value, "must be a list of host:port strings or a comma-separated string");
        }
        List<String> addresses = new ArrayList<>(entries.size());
        for (String entry : entries) {
            String address = entry.trim();
            if (!address.isEmpty()) {
                addresses.add(validAddress(key, address));
            }
        }
        return addresses;
    }

    /**
     * A list of topic names (a comma-separated string or a collection of strings), each a legal Kafka topic name
     * (1 to 249 of {@code a-z A-Z 0-9 . _ -}, not {@code .} or {@code ..}), duplicates dropped, order kept; at most
     * {@code maxTopics} of them. An absent key gives an empty list.
     */
    List<String> topicNames(String key, int maxTopics) {
        Object value = raw(key);
        List<String> entries = new ArrayList<>();
        if (value instanceof String) {
            entries.addAll(List.of(((String) value).split(",", -1)));
        } else if (value instanceof Collection) {
            for (Object entry : (Collection<?>) value) {
                if (!(entry instanceof String)) {
                    throw new ConfigException(key, entry, "must be a list of topic names");
                }
                entries.add((String) entry);
            }
        } else if (value != null) {
            throw new ConfigException(key, value, "must be a list of topic names or a comma-separated string");
        }
        java.util.LinkedHashSet<String> names = new java.util.LinkedHashSet<>();
        for (String entry : entries) {
            String name = entry.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!TOPIC_NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
                throw new ConfigException(key, name, "each entry must be a legal topic name: 1 to 249 of a-z, A-Z, "
                        + "0-9, '.', '_' and '-' (not '.' or '..')");
            }
            names.add(name);
        }
        if (names.size() > maxTopics) {
            throw new ConfigException(key, value, "must name at most kmeta.metadata.max.topics (" + maxTopics
                    + ") topics, not " + names.size());
        }
        return List.copyOf(names);
    }

    /**
     * Reconciles a base value with its maximum so that {@code base <= max}. Both given and the maximum below the base:
     * a contradiction, rejected. Only one given and in conflict with the other's default: the given one wins and the
     * pair becomes constant at it. kafka-clients instead applies the maximum as a constant whichever was given.
     *
     * @param maxFollowsBase kafka-clients' reconnect rule: the base given without a maximum is also the maximum
     */
    Pair pair(ConfigKey baseKey, ConfigKey maxKey, boolean maxFollowsBase) {
        boolean baseGiven = isSet(baseKey.name);
        boolean maxGiven = isSet(maxKey.name);
        long base = baseKey.readLong(this);
        long max = maxKey.readLong(this);
        if (baseGiven && !maxGiven && maxFollowsBase) {
            LOG.info("{} is set but {} is not: a constant backoff of {} ms (as kafka-clients)", baseKey, maxKey, base);
            return new Pair(base, base);
        }
        if (base <= max) {
            return new Pair(base, max);
        }
        if (baseGiven && maxGiven) {
            throw new ConfigException(maxKey.name, max, "must be >= " + maxKey.atLeastKey + " (" + base + ")");
        }
        long constant = baseGiven ? base : max;
        LOG.info("{}={} is above {}={}: both are taken as {} ms (constant, the value given wins)",
                baseKey, base, maxKey, max, constant);
        return new Pair(constant, constant);
    }

    /** The user's properties with string keys, as an unmodifiable copy; a key that is not a string fails. */
    static Map<String, Object> copy(Map<?, ?> props) {
        Map<String, Object> copy = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : props.entrySet()) {
            Object key = e.getKey();
            if (!(key instanceof String)) {
                throw new ConfigException(String.valueOf(key),
                        "Invalid configuration key " + key + ": keys must be strings");
            }
            copy.put((String) key, e.getValue());
        }
        return Collections.unmodifiableMap(copy);
    }

    /** {@link #copy} of a {@link Properties} with its defaults (the properties it falls back to). */
    static Map<String, Object> copyWithDefaults(Properties props) {
        Map<Object, Object> all = new LinkedHashMap<>();
        props.forEach(all::put);
        for (String name : props.stringPropertyNames()) {
            all.putIfAbsent(name, props.getProperty(name));
        }
        return copy(all);
    }

    /** An unmodifiable copy of {@code originals} with {@code key} set to {@code value}, or removed if it is null. */
    static Map<String, Object> with(Map<String, Object> originals, String key, Object value) {
        Map<String, Object> changed = new LinkedHashMap<>(originals);
        if (value == null) {
            changed.remove(key);
        } else {
            changed.put(key, value);
        }
        return Collections.unmodifiableMap(changed);
    }

    /** The client id of a configuration given none: the one it inherits, else the next {@code kmeta-<n>}. */
    static String generatedClientId(String inheritedClientId) {
        return inheritedClientId != null ? inheritedClientId : "kmeta-" + CLIENT_ID_SEQUENCE.getAndIncrement();
    }

    /** Whether {@code toString()} must hide the value of this key. */
    static boolean isSecret(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        for (String marker : SECRET_MARKERS) {
            if (lower.contains(marker)) {
                return true;
            }
        }
        return false;
    }

    private static String validAddress(String key, String address) {
        Matcher m = HOST_PORT.matcher(address);
        if (m.matches()) {
            int port = Integer.parseInt(m.group(3));
            if (port >= 1 && port <= 65535) {
                return address;
            }
        }
        throw new ConfigException(key, address,
                "each entry must be host:port with a port in 1..65535 (an IPv6 address in brackets: [::1]:9092)");
    }

    private Object raw(String key) {
        Object value = props.get(key);
        if (value == null && props.containsKey(key)) {
            throw new ConfigException(key, null, "must not be null (leave the key out to use the default)");
        }
        return value;
    }

    private static long toLong(String key, Object value, String requirement) {
        try {
            if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
                return ((Number) value).longValue();
            }
            if (value instanceof Number) { // BigInteger, BigDecimal, Double 5000.0 ...: only whole values that fit
                return new BigDecimal(value.toString()).longValueExact();
            }
            if (value instanceof String) {
                return Long.parseLong(((String) value).trim());
            }
        } catch (NumberFormatException | ArithmeticException e) {
            throw new ConfigException(key, value, requirement);
        }
        throw new ConfigException(key, value, requirement);
    }

    private static String range(long min, long max) {
        if (max == Long.MAX_VALUE) {
            return ">= " + min;
        }
        return "between " + min + " and " + max;
    }
}
