package dev.kmeta.sender.internal;

import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.sender.HostResolverHook;
import org.apache.kafka.clients.HostResolver;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.MetadataUpdater;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One running instance: the manager and what drives it - kmeta's own sender loop and thread, or (driven mode) a
 * producer's network client - and a reference count for shared use. The JVM-wide registry of shared instances
 * lives here, keyed by cluster and security identity. Each instance registers its MBean once when it starts and
 * unregisters it when its last reference goes ({@link MetadataMBeans}).
 *
 * <p>Thread-safe.
 */
@SuppressKafkaInternalApiUsage("owns an instance's NetworkClient-facing parts (MetadataUpdater, HostResolver, "
        + "KafkaClient), own thread or driven")
public final class SenderCore {
    private static final Logger log = LoggerFactory.getLogger(SenderCore.class);
    private static final long CLOSE_JOIN_MS = 10_000;
    private static final ConcurrentHashMap<Object, SenderCore> SHARED = new ConcurrentHashMap<>();

    private final MetadataConfig config;
    private final MetadataManager manager;
    private final SenderLoop loop;
    private final Thread thread;
    private final MetadataDriver driver;
    private final RecordingResolver resolver;
    private final KafkaClusterView clusterView = new KafkaClusterView();
    /** What an adapter keeps once per instance (the KafkaProducer route's shared views): lives as long as this instance. */
    private final AtomicReference<Object> adapterSlot = new AtomicReference<>();
    private final AtomicInteger refs = new AtomicInteger(1);
    private final Object sharedKey;
    /** The client.id of each open handle, in the order they came (issue 28: who shares a shared instance). */
    private final List<String> users = new ArrayList<>();
    /** Set once by the factory that made this instance, right after construction; null without an MBean. */
    private volatile ObjectName mbeanName;

    private SenderCore(MetadataConfig config, HostResolverHook resolverHook, Object sharedKey, boolean ownThread,
                       Ticker ticker) {
        KafkaClientsCompat.requireSupported(); // first: a kafka-clients kmeta cannot run on fails here, by name
        this.config = config;
        this.sharedKey = sharedKey;
        this.users.add(config.clientId());
        this.manager = new MetadataManager(config, Objects.requireNonNull(ticker, "ticker"));
        this.resolver = new RecordingResolver(resolverHook);
        // The start-up warm-up: subscribed before the sender runs, so its first request asks for them; nobody waits.
        manager.subscribeAll(config.prefetchTopics());
        EvidenceRecorder evidence = manager.connections();
        if (ownThread) {
            this.loop = new SenderLoop(manager, config, resolver, evidence);
            this.thread = new Thread(loop, "kmeta-metadata-sender | " + config.clientId());
            this.thread.setDaemon(true);
            this.driver = null;
        } else {
            this.loop = null;
            this.thread = null;
            this.driver = new MetadataDriver(manager, config, resolver, evidence);
            this.driver.nodeProvider().driveFromPoll();
        }
    }

    /** Starts a private instance with its own sender thread, on {@code ticker} (the one clock of the instance). */
    public static SenderCore start(MetadataConfig config, HostResolverHook resolver, Object sharedKey, Ticker ticker) {
        SenderCore core = new SenderCore(config, Objects.requireNonNull(resolver, "resolver"), sharedKey, true,
                ticker);
        if (sharedKey != null) {
            log.info("[{}] kmeta metadata starting, shared by the users of {} (this instance's client.id and log "
                    + "prefix are its first user's; users join and leave with an INFO line): {}", config.clientId(),
                    config.bootstrapServers(), config);
        } else {
            log.info("[{}] kmeta metadata starting: {}", config.clientId(), config);
        }
        core.thread.start();
        core.registerMBean();
        return core;
    }

    /** An instance without a thread, driven by a producer's own network client's poll; kmeta's clock is {@code ticker}. */
    public static SenderCore driven(MetadataConfig config, HostResolverHook resolver, Ticker ticker) {
        config.requireBootstrapServers();
        log.info("[{}] kmeta metadata (driven by the producer's network loop): {}", config.clientId(), config);
        SenderCore core = new SenderCore(config, Objects.requireNonNull(resolver, "resolver"), null, false, ticker);
        core.registerMBean();
        return core;
    }

    private void registerMBean() {
        mbeanName = MetadataMBeans.register(config.clientId(),
                new MetadataMXBeanImpl(config.clientId(), manager, this::rebootstraps, driver(), sharedKey != null,
                        this::users));
    }

    /** The name of this instance's MBean on the platform MBeanServer, or null if it could not be registered. */
    public ObjectName mbeanName() {
        return mbeanName;
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
                    k -> created[0] = start(config, HostResolverHook.system(), k, Ticker.system()));
            if (core == created[0]) {
                return core;
            }
            if (core.acquire()) {
                core.joined(config.clientId());
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

    /** The client.id of each open handle, in the order they came. */
    public List<String> users() {
        synchronized (users) {
            return List.copyOf(users);
        }
    }

    private void joined(String user) {
        List<String> now;
        synchronized (users) {
            users.add(user);
            now = List.copyOf(users);
        }
        log.info("[{}] {} joined this shared kmeta instance: its users are now {}", config.clientId(), user, now);
    }

    /**
     * Drops the reference of the handle of {@code user} (its client.id); the last one closes the instance and waits
     * (bounded) for its thread to end.
     */
    public void release(String user) {
        List<String> now;
        synchronized (users) {
            users.remove(user);
            now = List.copyOf(users);
        }
        if (refs.decrementAndGet() > 0) {
            if (sharedKey != null) {
                log.info("[{}] {} left this shared kmeta instance: its users are now {}", config.clientId(), user,
                        now);
            }
            return;
        }
        MetadataMBeans.unregister(mbeanName); // first: a shared successor made from now on gets the plain name
        if (sharedKey != null) {
            SHARED.remove(sharedKey, this);
        }
        manager.close();
        if (thread == null) {
            return;
        }
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

    /** Driven mode: the updater to give the producer's {@code NetworkClient}. */
    public MetadataUpdater metadataUpdater() {
        return requireDriven().nodeProvider();
    }

    /** Driven mode: the resolver to give the producer's {@code NetworkClient} (it records DNS evidence). */
    public HostResolver hostResolver() {
        return resolver;
    }

    /** Driven mode: the client kmeta sends its metadata requests on; once, right after it is built. */
    public void attach(KafkaClient client) {
        requireDriven().attach(client);
    }

    private MetadataDriver requireDriven() {
        if (driver == null) {
            throw new IllegalStateException("this instance runs its own sender thread; use KafkaMetadata.driven()");
        }
        return driver;
    }

    public long rebootstraps() {
        return loop != null ? loop.rebootstraps() : driver.rebootstraps();
    }

    /** The driver of this instance (of kmeta's own thread, or of the producer's client). */
    public MetadataDriver driver() {
        return loop != null ? loop.driver() : driver;
    }

    public MetadataManager manager() {
        return manager;
    }

    public MetadataConfig config() {
        return config;
    }

    public EvidenceRecorder evidence() {
        return manager.connections();
    }

    public KafkaClusterView clusterView() {
        return clusterView;
    }

    /** The slot where an adapter keeps what it shares once per instance ({@link Handles#adapterSlot}). */
    public AtomicReference<Object> adapterSlot() {
        return adapterSlot;
    }

    /** The sender thread, or null in driven mode. */
    public Thread thread() {
        return thread;
    }
}
