package dev.kmeta.sender.internal;

import dev.kmeta.sender.HostResolverHook;
import org.apache.kafka.clients.HostResolver;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link HostResolver} kmeta hands to kafka-clients: delegates to the user's {@link HostResolverHook} and
 * remembers, per host, the last resolution failure - evidence for "bootstrap name does not resolve". Thread-safe.
 */
@SuppressKafkaInternalApiUsage("the HostResolver kmeta gives its NetworkClient, recording DNS failures as evidence")
final class RecordingResolver implements HostResolver {
    private final HostResolverHook hook;
    private final ConcurrentHashMap<String, String> failures = new ConcurrentHashMap<>();
    /** Successful resolutions per host (the KIP-909 watch asks whether a bootstrap name resolved lately). */
    private final ConcurrentHashMap<String, Long> successes = new ConcurrentHashMap<>();

    RecordingResolver(HostResolverHook hook) {
        this.hook = hook;
    }

    @Override
    public InetAddress[] resolve(String host) throws UnknownHostException {
        try {
            InetAddress[] addresses = hook.resolve(host);
            if (addresses == null || addresses.length == 0) {
                throw new UnknownHostException(host + ": no addresses");
            }
            failures.remove(host);
            successes.merge(host, 1L, Long::sum);
            return addresses;
        } catch (UnknownHostException e) {
            String why = e.getMessage() == null || e.getMessage().equals(host) ? "" : ": " + e.getMessage();
            failures.put(host, "cannot resolve host name " + host + why);
            throw withoutStackTrace(e);
        }
    }

    /**
     * The failure as kafka-clients' {@code NetworkClient} will log it (WARN {@code Error connecting to node}, with the
     * exception): a name that does not resolve is an expected network failure, recorded as evidence and diagnosed,
     * so its line carries the message, not a stack trace of the resolver (issue 28: 327 stack-trace lines in 5 s).
     */
    private static UnknownHostException withoutStackTrace(UnknownHostException e) {
        UnknownHostException quiet = new UnknownHostException(e.getMessage());
        quiet.setStackTrace(new StackTraceElement[0]);
        return quiet;
    }

    /** The last failure to resolve {@code host}, or null if its last resolution worked. */
    String failureFor(String host) {
        return failures.get(host);
    }

    /** How many times {@code host} resolved so far. */
    long successes(String host) {
        Long n = successes.get(host);
        return n == null ? 0 : n;
    }
}
