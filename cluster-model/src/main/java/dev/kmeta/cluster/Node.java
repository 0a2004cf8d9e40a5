package dev.kmeta.cluster;

import java.util.Objects;

/**
 * A broker as the cluster advertises it: its id and the address it asks clients to connect to.
 *
 * <p>Immutable and thread-safe. Two nodes are equal when id, host, port and rack are equal, so a snapshot can tell
 * whether a broker moved.
 */
public final class Node {
    private final int id;
    private final String host;
    private final int port;
    private final String rack;

    /**
     * Creates a node.
     *
     * @param id   the broker id, {@code >= 0}
     * @param host the advertised host name or address, not null
     * @param port the advertised port, 0 to 65535
     * @param rack the rack, or null when the broker has none
     * @throws IllegalArgumentException if the id is negative or the port out of range
     */
    public Node(int id, String host, int port, String rack) {
        if (id < 0) {
            throw new IllegalArgumentException("node id must be >= 0: " + id);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port of node " + id + " must be 0..65535: " + port);
        }
        this.id = id;
        this.host = Objects.requireNonNull(host, "host");
        this.port = port;
        this.rack = rack;
    }

    /** Creates a node without a rack. */
    public Node(int id, String host, int port) {
        this(id, host, port, null);
    }

    /** The broker id. */
    public int id() {
        return id;
    }

    /** The advertised host. */
    public String host() {
        return host;
    }

    /** The advertised port. */
    public int port() {
        return port;
    }

    /** The rack, or null. */
    public String rack() {
        return rack;
    }

    /** {@code host:port}, as a user would type it. */
    public String address() {
        return host + ":" + port;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Node)) {
            return false;
        }
        Node n = (Node) o;
        return id == n.id && port == n.port && host.equals(n.host) && Objects.equals(rack, n.rack);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * id + host.hashCode()) + port) + Objects.hashCode(rack);
    }

    @Override
    public String toString() {
        return id + "@" + host + ":" + port + (rack == null ? "" : " (rack " + rack + ")");
    }
}
