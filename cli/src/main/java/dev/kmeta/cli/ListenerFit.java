package dev.kmeta.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Whether a listener's protocol, as {@link ListenerProbe} found it, fits {@code security.protocol}, and what to say
 * when it does not: the words doctor and lookup print for SASL or TLS expected but PLAINTEXT, TLS expected but
 * SASL_PLAINTEXT, and SASL expected by the listener. Only a clear-text answer decides. Stateless and thread-safe.
 */
final class ListenerFit {
    /**
     * A protocol that does not fit.
     *
     * @param handshake true when the handshake check fails (security settings the listener does not speak), false
     *                  when the metadata check does (no security settings, and the listener wants SASL)
     * @param seen      what was found, one line, naming the address
     * @param fix       what to do
     */
    record Mismatch(boolean handshake, String seen, String fix) {
    }

    private ListenerFit() {
    }

    /** The mismatch between {@code protocol} and what {@code where} speaks, or null when they fit (or it is unknown). */
    static Mismatch of(String protocol, HostPort where, ListenerProbe.Result listener) {
        ListenerProbe.Kind kind = listener.kind();
        String at = where + " (" + listener.detail() + ")";
        if (protocol.equals("SASL_PLAINTEXT") && kind == ListenerProbe.Kind.PLAINTEXT) {
            return new Mismatch(true, "SASL expected but the listener speaks PLAINTEXT: " + at + "; the user and "
                    + "password were never checked", "give the port of the brokers' SASL listener "
                    + "(listeners=SASL_PLAINTEXT://...), or, if this PLAINTEXT listener is the one to use, remove "
                    + "security.protocol and the sasl.* settings from --command-config");
        }
        if ((protocol.equals("SSL") || protocol.equals("SASL_SSL"))
                && (kind == ListenerProbe.Kind.PLAINTEXT || kind == ListenerProbe.Kind.SASL_PLAINTEXT)) {
            return new Mismatch(true, "TLS expected but the listener speaks " + kind + ": " + at, "give the port of "
                    + "the brokers' TLS listener (listeners=" + protocol + "://...), or, if this listener is the one "
                    + "to use, set security.protocol=" + kind + " in --command-config");
        }
        if (protocol.equals("PLAINTEXT") && kind == ListenerProbe.Kind.SASL_PLAINTEXT) {
            return new Mismatch(false, "the listener expects SASL: " + at + "; it answers no client that does not "
                    + "authenticate", "set security.protocol=SASL_PLAINTEXT, sasl.mechanism (one of "
                    + String.join(", ", listener.mechanisms()) + ") and sasl.jaas.config in --command-config, or "
                    + "give the port of the brokers' PLAINTEXT listener");
        }
        return null;
    }

    /**
     * Asks the bootstrap addresses in turn, until one answers the probe at all or {@code budgetMs} is spent, whether
     * it fits; null when none says it does not.
     */
    static Mismatch check(Connection conn, List<HostPort> bootstrap, Reachability net, long budgetMs) {
        Object mechanism = conn.props().get("sasl.mechanism");
        long endNs = System.nanoTime() + budgetMs * 1_000_000L;
        for (HostPort hp : bootstrap) {
            int timeoutMs = (int) Math.min(net.connectTimeoutMs(), (endNs - System.nanoTime()) / 1_000_000L);
            if (timeoutMs <= 0) {
                return null;
            }
            InetAddress address;
            try {
                address = net.resolve(hp.host());
            } catch (UnknownHostException e) {
                continue;
            }
            ListenerProbe.Result r = ListenerProbe.probe(new InetSocketAddress(address, hp.port()),
                    mechanism == null ? "GSSAPI" : mechanism.toString().trim(), timeoutMs);
            Mismatch m = of(conn.securityProtocol(), hp, r);
            if (m != null || r.kind() != ListenerProbe.Kind.UNKNOWN) {
                return m;
            }
        }
        return null;
    }
}
