package dev.kmeta.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One {@code host:port} of a {@code --bootstrap-server} list, not resolved (resolution is a check of its own).
 * Immutable.
 *
 * @param host     the host name or address as given (an IPv6 literal without its brackets)
 * @param port     the port, 1..65535
 * @param listener the {@code PROTOCOL://} (or listener name) prefix it was given with, upper case, or null. Kafka
 *                 accepts and ignores it (security.protocol decides); kmeta does the same
 */
record HostPort(String host, int port, String listener) {
    /** What may stand before {@code ://}: a security protocol or a listener name, as in {@code listeners=}. */
    private static final Pattern LISTENER = Pattern.compile("[A-Za-z0-9._-]+");
    /** The characters of an IPv6 literal (hex digits, ':', '.', a zone after '%'). */
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+(%[A-Za-z0-9._-]+)?");

    HostPort(String host, int port) {
        this(host, port, null);
    }

    /**
     * Parses {@code [PROTOCOL://]host:port[,...]} ({@code [v6]:port} for IPv6 literals).
     *
     * @throws IllegalArgumentException naming the entry that is not {@code [PROTOCOL://]host:port}
     */
    static List<HostPort> parseList(String value) {
        List<HostPort> result = new ArrayList<>();
        for (String entry : value.split(",", -1)) {
            result.add(parse(entry.trim()));
        }
        return List.copyOf(result);
    }

    static HostPort parse(String entry) {
        String listener = null;
        String address = entry;
        int scheme = entry.indexOf("://");
        if (scheme >= 0) {
            listener = entry.substring(0, scheme);
            if (!LISTENER.matcher(listener).matches()) {
                throw new IllegalArgumentException("'" + entry + "' has " + (listener.isEmpty() ? "nothing"
                        : "'" + listener + "'") + " before '://' (a protocol such as SASL_SSL:// or a listener name)");
            }
            address = entry.substring(scheme + 3);
        }
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("'" + entry + "' is not host:port");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains("/") || (host.contains(":") && !IPV6.matcher(host).matches())) {
            int separator = host.contains(":/") ? host.indexOf(":/") : host.indexOf(':');
            String hint = separator > 0 && LISTENER.matcher(host.substring(0, separator)).matches()
                    ? " (did you mean " + host.substring(0, separator) + "://"
                    + host.substring(separator + 1).replaceFirst("^/+", "") + address.substring(colon) + "?)" : "";
            throw new IllegalArgumentException("'" + entry + "' is not [PROTOCOL://]host:port" + hint);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + entry + "' has no numeric port");
        }
        if (port < 1 || port > 65_535 || host.isEmpty()) {
            throw new IllegalArgumentException("'" + entry + "' is not host:port with a port in 1..65535");
        }
        return new HostPort(host, port, listener == null ? null : listener.toUpperCase(java.util.Locale.ROOT));
    }

    /** {@code host:port}, without the listener prefix ({@code [v6]:port} for IPv6). */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
