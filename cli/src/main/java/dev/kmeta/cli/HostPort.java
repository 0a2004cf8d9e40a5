package dev.kmeta.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@code host:port} of a {@code --bootstrap-server} list, not resolved (resolution is a check of its own).
 * Immutable.
 *
 * @param host the host name or address as given
 * @param port the port, 1..65535
 */
record HostPort(String host, int port) {

    /**
     * Parses {@code host:port[,host:port...]} ({@code [v6]:port} for IPv6 literals).
     *
     * @throws IllegalArgumentException naming the entry that is not {@code host:port}
     */
    static List<HostPort> parseList(String value) {
        List<HostPort> result = new ArrayList<>();
        for (String entry : value.split(",", -1)) {
            result.add(parse(entry.trim()));
        }
        return List.copyOf(result);
    }

    static HostPort parse(String entry) {
        int colon = entry.lastIndexOf(':');
        if (colon <= 0 || colon == entry.length() - 1) {
            throw new IllegalArgumentException("'" + entry + "' is not host:port");
        }
        String host = entry.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(entry.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + entry + "' has no numeric port");
        }
        if (port < 1 || port > 65_535 || host.isEmpty()) {
            throw new IllegalArgumentException("'" + entry + "' is not host:port with a port in 1..65535");
        }
        return new HostPort(host, port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
