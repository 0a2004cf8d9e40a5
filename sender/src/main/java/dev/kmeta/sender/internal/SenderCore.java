package dev.kmeta.sender.internal;

import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.sender.HostResolverHook;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One running instance: the manager, its sender loop and thread, and a reference count for shared use. The JVM-wide
 * registry of shared instances lives here, keyed by cluster and security identity.
 *
 * <p>Thread-safe.
 */
public final class SenderCore {
    private static final Logger log = LoggerFactory.getLogger(SenderCore.class);
    private static final long CLOSE_JOIN_MS = 10_000;
    private static final ConcurrentHashMap<Object, SenderCore> SHARED = new ConcurrentHashMap<>();

    private final MetadataConfig config;
    private final MetadataManager manager;
    private final ConnectionEvidence evidence = new ConnectionEvidence();
    private final SenderLoop loop;
    private final Thread thread;
    private final KafkaClusterView clusterView = new KafkaClusterView();
    private final AtomicInteger refs = new AtomicInteger(1);
    private final Object sharedKey;

    private SenderCore(MetadataConfig config, HostResolverHook resolver, Object sharedKey) {
        this.config = config;
        this.sharedKey = sharedKey;
        this.manager = new MetadataManager(config, Ticker.system());
        this.loop = new SenderLoop(manager, config, resolver, evidence);
        this.thread = new Thread(loop, "kmeta-metadata-sender | " + config.clientId());
        this.thread.setDaemon(true);
    }

    /** Starts a private instance. */
    public static SenderCore start(MetadataConfig config, HostResolverHook resolver, Object sharedKey) {
        SenderCore core = new SenderCore(config, Objects.requireNonNull(resolver, "resolver"), sharedKey);
        log.info("[{}] kmeta metadata starting: {}", config.clientId(), config);
        core.thread.start();
        return core;
    }

    /**
     * A reference to the shared instance for this cluster and security identity, started if needed. A new instance
     * starts with one reference, its creator's; a caller that finds one running takes another.
     */
    public static SenderCore shared(MetadataConfig config) {
        Object key = identity(config);
        for (;;) {
            SenderCore[] created = new SenderCore[1];
            SenderCore core = SHARED.computeIfAbsent(key,
                    k -> created[0] = start(config, HostResolverHook.system(), k));
            if (core == created[0] || core.acquire()) {
                return core;
            }
            SHARED.remove(key, core); // it was closing: make a new one
        }
    }

    private static Object identity(MetadataConfig config) {
        // Raw values, not their text: a kafka-clients Password prints as "[hidden]" but compares by value, so two
        // callers with different credentials never share an instance.
        Map<String, Object> security = new TreeMap<>();
        config.originals().forEach((k, v) -> {
            if (k.startsWith("ssl.") || k.startsWith("sasl.") || k.startsWith("security.")) {
                security.put(k, v);
            }
        });
        return List.of(config.bootstrapServers(), config.securityProtocol(), config.clientDnsLookup(), security);
    }

    private boolean acquire() {
        for (;;) {
            int n = refs.get();
            if (n == 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Drops one reference; the last one closes the instance and waits (bounded) for its thread to end. */
    public void release() {
        if (refs.decrementAndGet() > 0) {
            return;
        }
        if (sharedKey != null) {
            SHARED.remove(sharedKey, this);
        }
        manager.close();
        loop.wakeup();
        try {
            thread.join(CLOSE_JOIN_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("[{}] the metadata sender did not stop within {} ms", config.clientId(), CLOSE_JOIN_MS);
        }
    }

    public MetadataManager manager() {
        return manager;
    }

    public MetadataConfig config() {
        return config;
    }

    public ConnectionEvidence evidence() {
        return evidence;
    }

    public SenderLoop loop() {
        return loop;
    }

    public KafkaClusterView clusterView() {
        return clusterView;
    }

    /** The sender thread (for tests that check it ends). */
    public Thread thread() {
        return thread;
    }
}
