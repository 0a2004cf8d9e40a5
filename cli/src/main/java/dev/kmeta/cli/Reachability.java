package dev.kmeta.cli;

import dev.kmeta.sender.HostResolverHook;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;

/**
 * The doctor's network probes: resolve a name through a {@link HostResolverHook} (never the system resolver behind
 * the hook's back) and open a plain TCP connection. Immutable and thread-safe.
 */
final class Reachability {
    private final HostResolverHook resolver;
    private final int connectTimeoutMs;

    Reachability(HostResolverHook resolver, int connectTimeoutMs) {
        this.resolver = resolver;
        this.connectTimeoutMs = connectTimeoutMs;
    }

    /** How long a TCP connect may take, ms. */
    int connectTimeoutMs() {
        return connectTimeoutMs;
    }

    /**
     * The first address of {@code host}.
     *
     * @throws UnknownHostException if it does not resolve (the message says why)
     */
    InetAddress resolve(String host) throws UnknownHostException {
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(host);
        } catch (UnknownHostException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new UnknownHostException(host + ": " + Connection.oneLine(e));
        }
        if (addresses == null || addresses.length == 0) {
            throw new UnknownHostException(host + ": no addresses");
        }
        return addresses[0];
    }

    /** Why a TCP connection to {@code address:port} cannot be made, or null when it can. */
    String connectProblem(InetAddress address, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), connectTimeoutMs);
            return null;
        } catch (SocketTimeoutException e) {
            return "no answer within " + connectTimeoutMs + " ms (a firewall dropping packets, or a wrong address)";
        } catch (ConnectException e) {
            String message = e.getMessage() == null ? "" : e.getMessage();
            return message.toLowerCase(java.util.Locale.ROOT).contains("refused")
                    ? "connection refused (nothing listens on that port)" : "cannot connect: " + message;
        } catch (IOException e) {
            return "cannot connect: " + Connection.oneLine(e);
        }
    }

    /** Why {@code host:port} cannot be reached (resolve, then connect), or null when it can. */
    String reachProblem(String host, int port) {
        InetAddress address;
        try {
            address = resolve(host);
        } catch (UnknownHostException e) {
            return host + " does not resolve here (" + Connection.oneLine(e) + ")";
        }
        return connectProblem(address, port);
    }
}
