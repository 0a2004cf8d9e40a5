package dev.kmeta.sender;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Resolves a broker host name to addresses, in place of the system resolver: for tests that fake DNS names, and for
 * deployments with their own discovery. Called on the sender thread at every connection attempt that needs
 * addresses (so a name that stops resolving, or starts resolving elsewhere, is noticed at the next attempt).
 *
 * <p>Implementations must be thread-safe and should return quickly.
 */
@FunctionalInterface
public interface HostResolverHook {
    /**
     * The addresses of {@code host}, first preferred.
     *
     * @throws UnknownHostException if the name does not resolve
     */
    InetAddress[] resolve(String host) throws UnknownHostException;

    /** The system resolver ({@link InetAddress#getAllByName}). */
    static HostResolverHook system() {
        return InetAddress::getAllByName;
    }
}
