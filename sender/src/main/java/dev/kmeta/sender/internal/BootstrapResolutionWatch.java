package dev.kmeta.sender.internal;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataConfig;
import org.apache.kafka.common.Node;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * KIP-909's {@code bootstrap.resolve.timeout.ms} as kmeta reads it: when no bootstrap name has resolved for that long
 * since the instance started (or since the last rebootstrap, which resolves the names again) and one of them failed
 * to resolve, the instance says so once, without waiting for a send - an ERROR line, a BOOTSTRAP_DNS
 * {@link #failure()} and a count. kmeta goes on resolving at each connection attempt; when a name resolves, the
 * failure is cleared (an INFO line). kafka-clients is always given 0, so its {@code NetworkClient} never resolves the
 * names on its own thread: kmeta's resolver (the {@code HostResolverHook}) does it.
 *
 * <p>Confined to the sender thread, except {@link #failure()} and {@link #timeouts()}, which any thread may read.
 */
final class BootstrapResolutionWatch {
    private static final Logger log = LoggerFactory.getLogger(BootstrapResolutionWatch.class);

    private final String clientId;
    private final long boundMs;
    private final List<String> servers;
    private final RecordingResolver resolver;
    private final Function<String, Diagnosis> diagnosis;
    /** Wakes the threads parked for a change of the evidence (a send waiting for the bound to pass). */
    private final Runnable onFailure;
    private final Set<String> hosts = new LinkedHashSet<>();
    private final AtomicLong timeouts = new AtomicLong();
    private volatile Diagnosis failure;
    /** Ticker ms the current watch began; -1 before the first step; {@link Long#MAX_VALUE} while nothing is watched. */
    private long sinceMs = -1;
    private long resolvedAtStart;

    /**
     * @param diagnosis makes the instance's BOOTSTRAP_DNS diagnosis from the line of what was seen
     * @param onFailure run once the failure is recorded: wakes whoever waits for it
     */
    BootstrapResolutionWatch(MetadataConfig config, RecordingResolver resolver, List<Node> bootstrapNodes,
                             Function<String, Diagnosis> diagnosis, Runnable onFailure) {
        this.diagnosis = diagnosis;
        this.onFailure = onFailure;
        this.clientId = config.clientId();
        this.boundMs = config.bootstrapResolveTimeoutMs();
        this.servers = config.bootstrapServers();
        this.resolver = resolver;
        bootstrapNodes.forEach(n -> hosts.add(n.host()));
    }

    /** BOOTSTRAP_DNS while the bound has passed with no bootstrap name resolving; else null. Any thread. */
    Diagnosis failure() {
        return failure;
    }

    /** Times the bound passed with no bootstrap name resolving. Any thread. */
    long timeouts() {
        return timeouts.get();
    }

    /** The names are resolved again from now (a rebootstrap): watch again, from {@code nowMs}. */
    void restart(long nowMs) {
        if (boundMs > 0) {
            sinceMs = nowMs;
            resolvedAtStart = resolved();
        }
    }

    /** One look, at each step of the sender; returns ms until the next look is needed ({@link Long#MAX_VALUE}: none). */
    long check(long nowMs) {
        if (boundMs <= 0) {
            return Long.MAX_VALUE;
        }
        if (sinceMs < 0) {
            restart(nowMs);
        }
        if (resolved() != resolvedAtStart) {
            if (failure != null) {
                failure = null;
                log.info("[{}] a bootstrap name of {} resolves now; going on", clientId, servers);
            }
            sinceMs = Long.MAX_VALUE;
            resolvedAtStart = resolved();
            return Long.MAX_VALUE;
        }
        if (sinceMs == Long.MAX_VALUE || failure != null) {
            return Long.MAX_VALUE;
        }
        long leftMs = sinceMs + boundMs - nowMs;
        String dns = lastFailure();
        if (leftMs > 0 || dns == null) {
            return Math.max(leftMs, 1);
        }
        String seen = "no name of bootstrap.servers=" + servers + " resolved within bootstrap.resolve.timeout.ms="
                + boundMs + " (" + dns + ")";
        failure = diagnosis.apply(seen);
        timeouts.incrementAndGet();
        onFailure.run();
        log.error("[{}] {}: sends waiting for metadata time out until one resolves; kmeta keeps resolving "
                + "them. Check the host names in bootstrap.servers and this host's DNS", clientId, seen);
        return Long.MAX_VALUE;
    }

    private long resolved() {
        long n = 0;
        for (String host : hosts) {
            n += resolver.successes(host);
        }
        return n;
    }

    private String lastFailure() {
        for (String host : hosts) {
            String f = resolver.failureFor(host);
            if (f != null) {
                return f;
            }
        }
        return null;
    }
}
