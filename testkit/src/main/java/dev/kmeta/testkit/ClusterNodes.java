package dev.kmeta.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static dev.kmeta.testkit.KafkaCluster.CLIENT_LISTENER;
import static dev.kmeta.testkit.KafkaCluster.CONTROLLER_ID;
import static dev.kmeta.testkit.KafkaCluster.CONTROLLER_LISTENER;
import static dev.kmeta.testkit.KafkaCluster.HOST;
import static dev.kmeta.testkit.KafkaCluster.INTERNAL_LISTENER;
import static dev.kmeta.testkit.KafkaCluster.LOOPBACK;
import static dev.kmeta.testkit.KafkaCluster.START_ATTEMPTS;

/**
 * The node lifecycle of one {@link KafkaCluster}: the nodes (in this JVM or in child JVMs), their ports, the
 * storage they are formatted in, the proxies in front of the brokers and the shared Admin on the INTERNAL listeners.
 * It formats and starts every node in parallel, stops, kills and restarts brokers and the controller, and starts
 * again on new ports when a start failed in a way a taken port explains ({@link PortRace}), up to
 * {@value KafkaCluster#START_ATTEMPTS} starts.
 *
 * <p>Not thread-safe for lifecycle calls: {@link KafkaCluster} serializes them. Queries (ports, addresses, running
 * brokers, the Admin) may run concurrently: they read volatile fields.
 */
final class ClusterNodes {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNodes.class);
    /** The controller's listener for brokers behind the controller proxy. */
    static final String LAGGED_LISTENER = "CONTROLLER_PROXIED";

    private final ClusterSettings settings;
    private final String clusterId;
    private final List<Integer> brokerIds;
    private final BrokerConfigs brokerConfigs;
    private final Readiness readiness;
    private final Map<Integer, KafkaNode> nodes = new LinkedHashMap<>();
    private final Map<Integer, FaultProxy> proxies = new LinkedHashMap<>();
    /** Brokers that reach the controller through a proxy (Builder.withControllerProxy), by broker id. */
    private final Map<Integer, FaultProxy> controllerProxies = new LinkedHashMap<>();
    /** The controller's second controller listener, which those brokers use through the proxy (0: none). */
    private int laggedControllerPort;
    private volatile Path storage;
    private volatile Admin admin;
    private int controllerPort;

    ClusterNodes(ClusterSettings settings, String clusterId, List<Integer> brokerIds) {
        this.settings = settings;
        this.clusterId = clusterId;
        this.brokerIds = brokerIds;
        this.brokerConfigs = new BrokerConfigs(settings);
        this.readiness = new Readiness(this::runningBrokerIds, this::internalAddress, this::brokerAddress);
    }

    /** The waits that ask every running broker of these nodes. */
    Readiness readiness() {
        return readiness;
    }

    // ------------------------------------------------------------------ starting

    /**
     * Starts the cluster, and again from scratch on new ports each time a start failed in a way a taken port
     * explains, up to {@value KafkaCluster#START_ATTEMPTS} starts; the last failure carries the earlier ones as
     * suppressed.
     */
    void startAll() {
        List<RuntimeException> earlier = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            try {
                startOnce();
                return;
            } catch (RuntimeException e) {
                if (!PortRace.mayBePortRace(e)) {
                    throw e;
                }
                if (attempt == START_ATTEMPTS) {
                    throw gaveUp(e, earlier);
                }
                LOG.warn("cluster {} did not start, maybe a port was taken ({}); starting again on new ports",
                        clusterId, e.toString());
                earlier.add(e);
                stopAllNodes();
                nodes.clear();
                deleteStorage();
            }
        }
    }

    private static IllegalStateException gaveUp(RuntimeException last, List<RuntimeException> earlier) {
        IllegalStateException failure = new IllegalStateException("the cluster did not start in " + START_ATTEMPTS
                + " attempts, each on new ports; the last attempt: " + last.getMessage(), last);
        earlier.forEach(failure::addSuppressed);
        return failure;
    }

    private void startOnce() {
        storage = Storage.create(settings.storageRoot);
        createNodes();
        createProxies();
        createControllerProxies();
        NodeTasks.inParallel("start", new ArrayList<>(nodes.values()), node -> {
            long begin = System.nanoTime();
            node.format(configOf(node), clusterId);
            long formatted = System.nanoTime();
            startNode(node);
            LOG.debug("node {}: formatted in {} ms, started in {} ms", node.id,
                    TimeUnit.NANOSECONDS.toMillis(formatted - begin), millisSince(formatted));
            return null;
        }, settings.startTimeout);
        proxies.forEach((id, proxy) -> proxy.retarget(HOST, broker(id).clientPort));
        admin = Admin.create(adminConfig());
        readiness.awaitBrokersSeeEachOther();
    }

    private void createNodes() {
        boolean combined = settings.brokers == 1 && !settings.childProcesses;
        KafkaDistribution dist = settings.distribution;
        if (!combined) {
            KafkaNode controller = dist != null
                    ? new ChildProcessNode(CONTROLLER_ID, KafkaNode.Role.CONTROLLER, nodeDir(CONTROLLER_ID), dist)
                    : new InProcessNode(CONTROLLER_ID, KafkaNode.Role.CONTROLLER, nodeDir(CONTROLLER_ID));
            choosePorts(controller);
            nodes.put(CONTROLLER_ID, controller);
        }
        KafkaNode.Role role = combined ? KafkaNode.Role.COMBINED : KafkaNode.Role.BROKER;
        for (int id : brokerIds) {
            KafkaNode node = settings.childProcesses || dist != null
                    ? new ChildProcessNode(id, role, nodeDir(id), dist)
                    : new InProcessNode(id, role, nodeDir(id));
            choosePorts(node);
            nodes.put(id, node);
        }
    }

    private void createProxies() {
        if (settings.proxies && proxies.isEmpty()) {
            for (int id : brokerIds) {
                proxies.put(id, FaultProxy.create());
            }
        }
    }

    /** A proxy to the controller's port for each broker the builder named; retargeted when that port is new. */
    private void createControllerProxies() {
        if (settings.controllerProxies.isEmpty()) {
            return;
        }
        if (!hasController()) {
            throw new IllegalStateException("withControllerProxy needs a controller of its own (2+ brokers)");
        }
        laggedControllerPort = settings.portPicker.pick(CONTROLLER_ID, LAGGED_LISTENER);
        FaultProxy proxy = controllerProxies.isEmpty() ? FaultProxy.create()
                : controllerProxies.values().iterator().next();
        proxy.retarget(HOST, laggedControllerPort);
        for (int id : settings.controllerProxies) {
            controllerProxies.put(id, proxy); // one proxy: the controller advertises one address per listener
        }
    }

    /**
     * With a controller proxy: the controller gets a second controller listener, advertised at the proxy's address,
     * and the proxied brokers use only that one. A follower takes the leader's endpoint for the listener it came in
     * on (KIP-853) and reconnects there: on the CONTROLLER listener that would be the controller's own port, past
     * the proxy.
     */
    private void addLaggedControllerListener(KafkaNode node, Map<String, String> config) {
        FaultProxy proxy = controllerProxies.isEmpty() ? null : controllerProxies.values().iterator().next();
        if (proxy == null || !(node.id == CONTROLLER_ID || controllerProxies.containsKey(node.id))) {
            return;
        }
        config.put("listener.security.protocol.map", config.get("listener.security.protocol.map") + ","
                + LAGGED_LISTENER + ":PLAINTEXT");
        if (node.id == CONTROLLER_ID) {
            config.put("listeners", config.get("listeners") + "," + LAGGED_LISTENER + "://" + HOST + ":"
                    + laggedControllerPort);
            config.put("advertised.listeners", CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort + ","
                    + LAGGED_LISTENER + "://" + HOST + ":" + proxy.port());
            config.put("controller.listener.names", CONTROLLER_LISTENER + "," + LAGGED_LISTENER);
        } else {
            config.put("controller.listener.names", LAGGED_LISTENER);
        }
    }

    private Path nodeDir(int id) {
        return storage.resolve("node-" + id);
    }

    /**
     * New ports for each of a node's listeners (a combined node's CONTROLLER listener too), chosen before it
     * starts: the controller's is named in every node's {@code controller.quorum.voters}, and a restarted broker
     * binds its former ports again. They come from {@link ClusterSettings#portPicker}, by default
     * {@link FreePorts#next()}: outside the ephemeral range, where no outgoing connection takes them.
     */
    private void choosePorts(KafkaNode node) {
        if (node.role.isBroker()) {
            node.clientPort = settings.portPicker.pick(node.id, CLIENT_LISTENER);
            node.internalPort = settings.portPicker.pick(node.id, INTERNAL_LISTENER);
        }
        if (node.role != KafkaNode.Role.BROKER) {
            controllerPort = settings.portPicker.pick(node.id, CONTROLLER_LISTENER);
            node.controllerPort = controllerPort;
        }
    }

    /** Starts a node; a failed start is rethrown with the evidence of its ports ({@link PortRace#explained}). */
    private void startNode(KafkaNode node) throws Exception {
        try {
            node.start(configOf(node), settings.startTimeout);
        } catch (Exception | Error e) {
            IllegalStateException explained = PortRace.explained(node, controllerPort, e);
            if (explained == null) {
                throw e;
            }
            throw explained;
        }
    }

    private Map<String, String> configOf(KafkaNode node) {
        FaultProxy toController = controllerProxies.get(node.id);
        int port = toController != null ? toController.port() : controllerPort;
        Map<String, String> config = brokerConfigs.of(node, controllerId(), port, advertisedClientAddress(node));
        addLaggedControllerListener(node, config);
        return config;
    }

    private int controllerId() {
        return hasController() ? CONTROLLER_ID : brokerIds.get(0);
    }

    /** host:port the CLIENT listener advertises, or null for its own (bound) address. */
    private String advertisedClientAddress(KafkaNode node) {
        FaultProxy proxy = proxies.get(node.id);
        if (proxy != null) {
            return HOST + ":" + proxy.port();
        }
        InetSocketAddress advertised = settings.advertised.get(node.id);
        return advertised == null ? null : advertised.getHostString() + ":" + advertised.getPort();
    }

    // ------------------------------------------------------------------ one broker, the controller

    /** Stops a running broker cleanly (controlled shutdown). */
    void stopBroker(int brokerId) {
        KafkaNode node = runningBroker(brokerId);
        long begin = System.nanoTime();
        node.stop();
        LOG.info("broker {} stopped in {} ms", brokerId, millisSince(begin));
    }

    /** Kills a running broker hard; only a broker in a child JVM can be. */
    void killBroker(int brokerId) {
        runningBroker(brokerId).kill();
        LOG.info("broker {} killed", brokerId);
    }

    /** Starts a stopped broker on its former ports (or new ones, see below) and waits until every broker sees it. */
    void startBroker(int brokerId) {
        KafkaNode node = broker(brokerId);
        if (node.isRunning()) {
            throw new IllegalStateException("broker " + brokerId + " is running");
        }
        long begin = System.nanoTime();
        forgetRegistration(brokerId);
        try {
            startOnFormerPorts(node);
        } catch (Exception e) {
            throw new IllegalStateException("broker " + brokerId + " did not start", e);
        }
        readiness.awaitBrokersSeeEachOther();
        LOG.info("broker {} started in {} ms", brokerId, millisSince(begin));
    }

    /**
     * Unregisters a stopped broker at the split-mode controller, so that its next incarnation registers at once: the
     * controller keeps the old incarnation's heartbeat session until {@code broker.session.timeout.ms} after its last
     * heartbeat and refuses a new one meanwhile (DUPLICATE_BROKER_REGISTRATION, retried every 200 ms), which made
     * every restart of a broker take that long. The broker is down: stopped, it is fenced already (controlled
     * shutdown); killed, it is fenced at the latest when its session expires, which this only brings forward. What
     * the others and their clients saw while it was down is unchanged. Only for a controller of this JVM's Kafka
     * version; a combined node's controller stops with it. Best effort: if it fails, the broker registers once the
     * session expires, as before.
     */
    private void forgetRegistration(int brokerId) {
        Admin current = admin;
        if (!hasController() || settings.distribution != null || current == null) {
            return;
        }
        try {
            current.unregisterBroker(brokerId).all().get(Readiness.TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("broker {}: unregistering it before its restart failed ({}); it registers once its former "
                    + "session expires", brokerId, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while unregistering broker " + brokerId, e);
        }
    }

    /**
     * Starts a broker on its former ports and, each time its start failed in a way a taken port explains (see
     * {@link PortRace#mayBePortRace}), on new ones, up to {@value KafkaCluster#START_ATTEMPTS} starts in all.
     */
    private void startOnFormerPorts(KafkaNode node) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                startNode(node);
                if (attempt > 1) {
                    followMovedPorts(node);
                }
                return;
            } catch (Exception | Error e) {
                if (attempt == START_ATTEMPTS || !PortRace.mayBePortRace(e)) {
                    throw e;
                }
                LOG.warn("broker {} did not start, maybe a port was taken ({}); starting on new ports", node.id,
                        e.toString());
                choosePorts(node);
                forgetRegistration(node.id); // the failed attempt may have registered before its listener failed
            }
        }
    }

    /** Points the broker's proxy (if any) and the shared Admin at its ports, which may have changed. */
    private void followMovedPorts(KafkaNode node) {
        FaultProxy proxy = proxies.get(node.id);
        if (proxy != null) {
            proxy.retarget(HOST, node.clientPort);
        }
        closeAdmin();
        admin = Admin.create(adminConfig()); // its bootstrap list names the INTERNAL ports, which may have changed
    }

    /** True in split mode: the KRaft controller is a node of its own. */
    boolean hasController() {
        return nodes.containsKey(CONTROLLER_ID);
    }

    /**
     * Stops the split-mode controller cleanly, starts it again on its former port and waits until it leads the
     * quorum and every running broker sees every other.
     */
    void restartController() {
        KafkaNode controller = nodes.get(CONTROLLER_ID);
        long begin = System.nanoTime();
        controller.stop();
        long stopped = System.nanoTime();
        try {
            startNode(controller); // on its former port: the brokers' controller.quorum.voters name it
        } catch (Exception e) {
            throw new IllegalStateException("the controller did not start again", e);
        }
        readiness.awaitQuorumLeader(this::admin, CONTROLLER_ID);
        readiness.awaitBrokersSeeEachOther();
        LOG.info("controller stopped in {} ms, serving again {} ms later", TimeUnit.NANOSECONDS.toMillis(
                stopped - begin), millisSince(stopped));
    }

    // ------------------------------------------------------------------ stopping

    /** True once a start created the storage (even if that start failed). */
    boolean hasStorage() {
        return storage != null;
    }

    /** Closes the Admin, stops every node (brokers first), closes the proxies and deletes the storage. */
    void closeAll() {
        try {
            closeAdmin();
            stopAllNodes();
        } finally {
            proxies.values().forEach(FaultProxy::close);
            new java.util.HashSet<>(controllerProxies.values()).forEach(FaultProxy::close);
            deleteStorage();
        }
    }

    private void closeAdmin() {
        Admin current = admin;
        admin = null;
        if (current != null) {
            try {
                current.close(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                LOG.warn("cluster {}: closing the admin client failed", clusterId, e);
            }
        }
    }

    /** Brokers first (in parallel, each cleanly; child JVMs are killed), then the controller. */
    private void stopAllNodes() {
        List<KafkaNode> brokers = new ArrayList<>();
        List<KafkaNode> controllers = new ArrayList<>();
        for (KafkaNode node : nodes.values()) {
            (node.role == KafkaNode.Role.CONTROLLER ? controllers : brokers).add(node);
        }
        stopQuietly(brokers);
        stopQuietly(controllers);
    }

    private void stopQuietly(List<KafkaNode> group) {
        try {
            NodeTasks.inParallel("stop", group, node -> {
                if (node instanceof ChildProcessNode) {
                    node.kill();
                } else {
                    node.stop();
                }
                return null;
            }, Duration.ofSeconds(60));
        } catch (RuntimeException e) {
            LOG.warn("cluster {}: stopping nodes failed", clusterId, e);
        }
    }

    private void deleteStorage() {
        Path dir = storage;
        if (dir == null) {
            return;
        }
        try {
            Storage.deleteRecursively(dir);
        } catch (IOException e) {
            LOG.warn("cluster {}: cannot delete {}", clusterId, dir, e);
        }
    }

    // ------------------------------------------------------------------ queries

    /** The broker node with this id. */
    KafkaNode broker(int brokerId) {
        if (brokerId < 0 || brokerId >= settings.brokers) {
            throw new IllegalArgumentException("no broker " + brokerId + "; brokers are " + brokerIds);
        }
        KafkaNode node = nodes.get(brokerId);
        if (node == null) {
            throw new IllegalStateException("cluster " + clusterId + " is not started");
        }
        return node;
    }

    private KafkaNode runningBroker(int brokerId) {
        KafkaNode node = broker(brokerId);
        if (!node.isRunning()) {
            throw new IllegalStateException("broker " + brokerId + " is not running");
        }
        return node;
    }

    List<Integer> runningBrokerIds() {
        return brokerIds.stream().filter(id -> broker(id).isRunning()).collect(Collectors.toUnmodifiableList());
    }

    /** The CLIENT listener of one broker (real port, whatever it advertises). */
    InetSocketAddress brokerAddress(int brokerId) {
        return new InetSocketAddress(LOOPBACK, broker(brokerId).clientPort);
    }

    /** The INTERNAL listener of one broker: the cluster's own checks and Admin, untouched by faults. */
    InetSocketAddress internalAddress(int brokerId) {
        return new InetSocketAddress(LOOPBACK, broker(brokerId).internalPort);
    }

    /** The proxy between a broker and the controller, or null when the builder named none for it. */
    FaultProxy controllerProxy(int brokerId) {
        return controllerProxies.get(brokerId);
    }

    /** The proxy in front of a broker, or null without proxies. */
    FaultProxy proxy(int brokerId) {
        return proxies.get(brokerId);
    }

    /** The storage directory; null before start. */
    Path storage() {
        return storage;
    }

    /** The shared Admin on the INTERNAL listeners, or null when not running. */
    Admin admin() {
        return admin;
    }

    private Map<String, Object> adminConfig() {
        return AdminOperations.adminConfig(brokerIds.stream().map(id -> HOST + ":" + broker(id).internalPort)
                .collect(Collectors.joining(",")));
    }

    static long millisSince(long beginNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beginNanos);
    }
}
