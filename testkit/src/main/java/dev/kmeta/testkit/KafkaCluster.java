package dev.kmeta.testkit;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka cluster (KRaft, Kafka 4.4, or another version from a {@link KafkaDistribution}) for tests and demos:
 * one combined broker+controller, or N brokers and one controller in split mode. Everything listens on 127.0.0.1 only, on ports from outside the kernel's
 * ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}), so that no outgoing connection (the suite
 * makes thousands) can take a listener's port between its pick and its bind.
 *
 * <pre>{@code
 * try (KafkaCluster kafka = KafkaCluster.builder().brokers(3).build().start()) {
 *     kafka.createTopic("orders", 6, 3);
 *     producerProps.put("bootstrap.servers", kafka.bootstrapServers());
 * }
 * }</pre>
 *
 * <p>Each broker has two listeners: {@code CLIENT}, which {@link #bootstrapServers()} points at and whose
 * advertised address tests may change ({@link Builder#advertise}, {@link Builder#withProxies()}), and
 * {@code INTERNAL}, for replication and for this class's own {@link #admin()} and checks, so that faults
 * injected on the client path never disturb the cluster itself. A restarted broker keeps its ports.
 * {@link Builder#clientSecurity(ClientSecurity)} secures the CLIENT listener (SSL, SASL_SSL, SASL_PLAINTEXT);
 * INTERNAL stays PLAINTEXT, so {@link #admin()} needs no credentials.
 *
 * <p>Should a port be taken anyway (by another process binding it explicitly), the start is tried again on new
 * ports, up to {@value #START_ATTEMPTS} starts in all, and a failure names the taken ports. This covers the KRaft
 * controller's failed bind too, which Kafka does not throw but reports by halting (made an exception here).
 *
 * <p>Brokers run in this JVM by default; with {@link Builder#childProcesses(boolean)} they run in child JVMs
 * (the controller stays in this JVM) and can be {@link #killBroker(int) killed}. With
 * {@link Builder#distribution(KafkaDistribution)} every node runs in a child JVM on that Kafka version's jars (3.7,
 * 3.9, ...): the test JVM then needs only kafka-clients, of any 4.x version. The storage lives under
 * {@code target/kafka-<random>/} and is deleted by {@link #close()}, which also runs from a JVM shutdown hook
 * for clusters left open. Kafka's non-daemon threads keep a JVM alive until the cluster is closed: always close
 * it (try-with-resources, or {@link KafkaClusterExtension}).
 *
 * <p>This class is the facade (its state: new, running, closed) over package-private rooms: {@link ClusterNodes}
 * (the node lifecycle: nodes, ports, storage, proxies, the shared Admin), {@link BrokerConfigs} (each node's
 * {@code server.properties}), {@link AdminOperations} (topics, SCRAM users, ACLs through the shared Admin),
 * {@link Readiness} (the waits that ask every broker) and {@link PortRace} (telling a taken port from other start
 * failures).
 *
 * <p>Thread-safe: lifecycle methods (start, stop, kill, close) are serialized; queries may run concurrently.
 */
public final class KafkaCluster implements AutoCloseable {

    /** Node id of the controller in split mode (brokers are 0..N-1; a single combined node is 0). */
    public static final int CONTROLLER_ID = 3000;

    static final String CLIENT_LISTENER = "CLIENT";
    static final String INTERNAL_LISTENER = "INTERNAL";
    static final String CONTROLLER_LISTENER = "CONTROLLER";
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    static final String HOST = LOOPBACK.getHostAddress();
    /** KRaft's ACL authorizer (ACLs live in the metadata log). */
    static final String STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    /**
     * The principal of every PLAINTEXT connection (INTERNAL, CONTROLLER): the brokers, the controller and this
     * class's own {@link #admin()}. With {@link Builder#withAuthorizer()} it is the super user.
     */
    public static final String INTERNAL_PRINCIPAL = "User:ANONYMOUS";

    private static final Logger LOG = LoggerFactory.getLogger(KafkaCluster.class);
    static final int START_ATTEMPTS = 3;

    private final ClusterSettings settings;
    private final String clusterId = Uuid.randomUuid().toString();
    private final List<Integer> brokerIds;
    private final ClusterNodes nodes;
    private final Readiness readiness;
    private final AdminOperations operations;
    private volatile State state = State.NEW;

    private enum State { NEW, RUNNING, CLOSED }

    private KafkaCluster(ClusterSettings settings) {
        this.settings = settings;
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < settings.brokers; i++) {
            ids.add(i);
        }
        this.brokerIds = Collections.unmodifiableList(ids);
        this.nodes = new ClusterNodes(settings, clusterId, brokerIds);
        this.readiness = nodes.readiness();
        this.operations = new AdminOperations(this::admin, readiness);
    }

    /**
     * A loopback port, free a moment ago, outside the kernel's ephemeral range and not handed out before by this JVM:
     * for {@link Builder#clientPort(int)} in a test.
     */
    public static int freePort() {
        return FreePorts.next();
    }

    /** A builder with the defaults: 1 combined node, auto topic creation off, brokers in this JVM. */
    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------ lifecycle

    /**
     * Formats and starts every node (in parallel) and returns once every broker is serving and every broker
     * sees every other. On failure everything started is shut down and the storage deleted.
     *
     * @return this cluster
     * @throws IllegalStateException if it cannot start (the cause says why) or was started before
     */
    public synchronized KafkaCluster start() {
        if (state != State.NEW) {
            throw new IllegalStateException("cluster " + clusterId + " was already started (" + state + ")");
        }
        if (settings.distribution == null) {
            KafkaExit.installThrowingProcedures(); // nodes in this JVM: their Exit calls must not end it
        }
        OpenClusters.add(this);
        long begin = System.nanoTime();
        try {
            nodes.startAll();
            state = State.RUNNING;
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
        LOG.info("Kafka cluster {} started in {} ms: {}, bootstrap {}", clusterId, ClusterNodes.millisSince(begin),
                shape(), bootstrapServers());
        return this;
    }

    /**
     * Shuts down every node (brokers first, in parallel), the admin client and the proxies, and deletes the
     * storage. Never throws; problems are logged. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        boolean started = state == State.RUNNING || nodes.hasStorage();
        state = State.CLOSED;
        if (!started) {
            return;
        }
        long begin = System.nanoTime();
        try {
            nodes.closeAll();
        } finally {
            OpenClusters.remove(this);
        }
        LOG.info("Kafka cluster {} closed in {} ms", clusterId, ClusterNodes.millisSince(begin));
    }

    /**
     * Stops a broker cleanly (controlled shutdown: its partitions' leadership moves away first). In a
     * single-node cluster this stops the controller too.
     */
    public synchronized void stopBroker(int brokerId) {
        requireRunning();
        nodes.stopBroker(brokerId);
    }

    /** Kills a broker hard ({@code kill -9}); needs {@link Builder#childProcesses(boolean) child processes}. */
    public synchronized void killBroker(int brokerId) {
        requireRunning();
        nodes.killBroker(brokerId);
    }

    /**
     * Starts a stopped broker on its former ports and returns once it serves and every running broker sees it.
     * If another process took one of its ports meanwhile, it starts on new ports (logged at WARN; its proxy, if
     * any, follows it; {@link #bootstrapServers()} changes), up to {@value #START_ATTEMPTS} starts in all; a
     * combined node's CONTROLLER port included, whose failed bind Kafka reports by halting. With a controller of its
     * own (of this JVM's Kafka version), the stopped broker is unregistered there first, so that the new incarnation
     * registers at once instead of after the former one's {@code broker.session.timeout.ms}.
     */
    public synchronized void startBroker(int brokerId) {
        nodes.broker(brokerId);
        requireRunning();
        nodes.startBroker(brokerId);
    }

    /** {@link #stopBroker(int)} then {@link #startBroker(int)}. */
    public synchronized void restartBroker(int brokerId) {
        stopBroker(brokerId);
        startBroker(brokerId);
    }

    /**
     * Stops the KRaft controller cleanly and starts it again on its former port (in a single combined node: the
     * node, as {@link #restartBroker(int) restartBroker(0)}). While it is down the brokers keep serving the
     * metadata they have; returns once the controller leads the quorum again and every running broker sees every
     * other.
     */
    public synchronized void restartController() {
        requireRunning();
        if (nodes.hasController()) {
            nodes.restartController();
        } else {
            restartBroker(brokerIds.get(0));
        }
    }

    // ------------------------------------------------------------------ topics

    /**
     * Creates a topic and waits until every running broker knows it with a leader for every partition, and
     * every leader serves (answers ListOffsets): a producer started now sees no NOT_LEADER_OR_FOLLOWER.
     */
    public void createTopic(String name, int partitions, int replicationFactor) {
        createTopic(name, partitions, replicationFactor, Map.of());
    }

    /** As {@link #createTopic(String, int, int)}, with topic configs (e.g. {@code min.insync.replicas}). */
    public void createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        operations.createTopic(name, partitions, replicationFactor, configs);
    }

    /** Grows a topic to {@code totalPartitions} and waits until every running broker knows them, led and serving. */
    public void addPartitions(String name, int totalPartitions) {
        operations.addPartitions(name, totalPartitions);
    }

    /** Deletes a topic and waits until no running broker knows it any more. */
    public void deleteTopic(String name) {
        operations.deleteTopic(name);
    }

    /** The leader of a partition as the cluster's Admin sees it now, or -1 if it has none. */
    public int leader(String topic, int partition) {
        return operations.leader(topic, partition);
    }

    // ------------------------------------------------------------------ users

    /** {@link #createScramUser(String, String, String) createScramUser(SCRAM-SHA-512, user, password)}. */
    public void createScramUser(String user, String password) {
        createScramUser(ClientSecurity.SCRAM_SHA_512, user, password);
    }

    /**
     * Creates (or updates) a SCRAM credential with the shared {@link #admin()} (INTERNAL listener), then waits until
     * every running broker lets that user in on its CLIENT listener: a client started now authenticates at once.
     *
     * @param mechanism {@link ClientSecurity#SCRAM_SHA_512} or {@link ClientSecurity#SCRAM_SHA_256}
     * @throws IllegalStateException if the CLIENT listener has no SASL, or a broker still refuses after 30 s
     */
    public void createScramUser(String mechanism, String user, String password) {
        operations.createScramUser(clientSecurity(), mechanism, user, password);
    }

    /**
     * Waits until every running broker's CLIENT listener accepts a connection made with these client properties
     * (TLS handshake and SASL authentication, as a client does them).
     */
    public void awaitLogin(String what, Map<String, Object> clientProps) {
        readiness.awaitLogin(what, clientProps);
    }

    // ------------------------------------------------------------------ ACLs

    /**
     * Allows a SASL user {@code operations} on one topic (literal name, from any host), with the shared
     * {@link #admin()}; returns once the ACLs are committed and listed back by {@code describeAcls}. Brokers apply
     * them from the metadata log shortly after: a test that needs them enforced waits for that as the user would.
     * Needs {@link Builder#withAuthorizer()}.
     */
    public void allowTopic(String user, String topic, AclOperation... operations) {
        this.operations.allowTopic(user, topic, operations);
    }

    // ------------------------------------------------------------------ queries

    /** {@code 127.0.0.1:port,...} of every broker's CLIENT listener (real ports, never proxies). */
    public String bootstrapServers() {
        return brokerIds.stream().map(id -> HOST + ":" + nodes.broker(id).clientPort)
                .collect(Collectors.joining(","));
    }

    /**
     * What a client needs to reach the CLIENT listeners without SASL: {@code bootstrap.servers} and, for SSL,
     * {@code security.protocol} and a truststore that trusts the brokers.
     *
     * @throws IllegalStateException if the CLIENT listener uses SASL (use {@link #clientProperties(String, String)})
     */
    public Map<String, Object> clientProperties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.putAll(clientSecurity().clientProperties());
        return p;
    }

    /**
     * What a SCRAM-SHA-512 user needs to reach the CLIENT listeners: {@code bootstrap.servers},
     * {@code security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config} and, over TLS,
     * {@code ssl.truststore.location/password/type}.
     */
    public Map<String, Object> clientProperties(String user, String password) {
        return clientProperties(ClientSecurity.SCRAM_SHA_512, user, password);
    }

    /** As {@link #clientProperties(String, String)} with another of {@link ClientSecurity#mechanisms()}. */
    public Map<String, Object> clientProperties(String mechanism, String user, String password) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.putAll(clientSecurity().clientProperties(mechanism, user, password));
        return p;
    }

    /**
     * How the CLIENT listener is secured ({@link ClientSecurity#plaintext()} by default).
     *
     * @throws IllegalStateException if it was configured by hand ({@link Builder#clientSecurityProtocol(String)})
     */
    public ClientSecurity clientSecurity() {
        ClientSecurity security = settings.clientSecurity;
        if (security == null) {
            throw new IllegalStateException("the CLIENT listener (" + settings.clientSecurityProtocol
                    + ") was configured by hand; build the client properties yourself");
        }
        return security;
    }

    /** The CLIENT listener of one broker (real port, whatever it advertises). */
    public InetSocketAddress brokerAddress(int brokerId) {
        return nodes.brokerAddress(brokerId);
    }

    /** The proxy in front of a broker; needs {@link Builder#withProxies()}. */
    public FaultProxy proxy(int brokerId) {
        nodes.broker(brokerId);
        FaultProxy proxy = nodes.proxy(brokerId);
        if (proxy == null) {
            throw new IllegalStateException("no proxies: build the cluster with withProxies()");
        }
        return proxy;
    }

    /**
     * The proxy between a broker and the KRaft controller; needs {@link Builder#withControllerProxy(int)}. Blackholed,
     * the broker stops following the controller's metadata and answers clients from what it had: a broker lagging
     * behind the others (a topic created meanwhile is unknown to it until the proxy passes again). The proxied
     * brokers use a controller listener of their own, which the controller advertises at the proxy's address: a
     * follower reconnects to the endpoint the leader advertises (KIP-853), which on the shared CONTROLLER listener
     * would be the controller's own port, past the proxy.
     */
    public FaultProxy controllerProxy(int brokerId) {
        FaultProxy proxy = nodes.controllerProxy(brokerId);
        if (proxy == null) {
            throw new IllegalStateException("no controller proxy for broker " + brokerId
                    + ": build the cluster with withControllerProxy(" + brokerId + ")");
        }
        return proxy;
    }

    /** {@code 127.0.0.1:port,...} of the proxies in front of the brokers; needs {@link Builder#withProxies()}. */
    public String proxiedBootstrapServers() {
        return brokerIds.stream().map(id -> proxy(id).address()).collect(Collectors.joining(","));
    }

    /** Ids of all brokers, running or not (0..N-1). */
    public List<Integer> brokerIds() {
        return brokerIds;
    }

    /** Ids of the brokers running now. */
    public List<Integer> runningBrokerIds() {
        return nodes.runningBrokerIds();
    }

    /** The cluster id the storage was formatted with. */
    public String clusterId() {
        return clusterId;
    }

    /** The cluster's storage directory ({@code <root>/kafka-<random>}); null before start. */
    public Path storageDirectory() {
        return nodes.storage();
    }

    /**
     * A shared Admin client on the INTERNAL listeners (unaffected by proxies and advertised overrides), closed
     * with the cluster. Do not close it.
     */
    public Admin admin() {
        Admin current = nodes.admin();
        if (current == null) {
            throw new IllegalStateException("cluster " + clusterId + " is not running (" + state + ")");
        }
        return current;
    }

    @Override
    public String toString() {
        return "KafkaCluster[" + clusterId + ", " + shape() + ", " + state + "]";
    }

    /**
     * Waits until every running broker's metadata names {@code leaderId} as the partition's leader (the Admin client
     * asks only one broker; the others, the new leader among them, learn an election a little later).
     */
    public void awaitLeaderEverywhere(String topic, int partition, int leaderId) {
        readiness.awaitLeaderEverywhere(topic, partition, leaderId);
    }

    private void requireRunning() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("cluster " + clusterId + " is " + state);
        }
    }

    private String shape() {
        String where = settings.distribution != null ? " (" + settings.distribution + ", child JVMs)"
                : settings.childProcesses ? " (child JVMs)" : "";
        return nodes.hasController()
                ? settings.brokers + " brokers + 1 controller" + where
                : "1 combined broker+controller" + where;
    }

    /** The Kafka version the nodes run: their distribution's, or this JVM's kafka_2.13 (in-process). */
    public String kafkaVersion() {
        return settings.distribution != null ? settings.distribution.version() : InProcessNode.kafkaVersion();
    }

    /** The distribution the nodes run, or null when they run on this JVM's own class path. */
    public KafkaDistribution distribution() {
        return settings.distribution;
    }

    // ------------------------------------------------------------------ builder

    /** Chooses the port of one listener of one node before the node starts. */
    @FunctionalInterface
    interface PortPicker {
        int pick(int nodeId, String listener);
    }

    /**
     * Configures a {@link KafkaCluster}. Not thread-safe; {@link #build()} copies the settings, so one builder
     * may build several clusters.
     */
    public static final class Builder {
        int brokers = 1;
        boolean autoCreateTopics;
        boolean childProcesses;
        boolean proxies;
        final java.util.Set<Integer> controllerProxies = new java.util.TreeSet<>();
        boolean authorizer;
        String clientSecurityProtocol = "PLAINTEXT";
        ClientSecurity clientSecurity;
        Path storageRoot = Paths.get("target");
        Duration startTimeout = Duration.ofSeconds(60);
        final Map<String, String> brokerConfigs = new LinkedHashMap<>();
        final Map<String, String> controllerConfigs = new LinkedHashMap<>();
        final Map<Integer, InetSocketAddress> advertised = new LinkedHashMap<>();
        Function<Integer, Map<String, String>> brokerOverrides = id -> Map.of();
        PortPicker portPicker = (nodeId, listener) -> FreePorts.next();
        KafkaDistribution distribution;
        boolean distributionSet;

        private Builder() {
        }

        /**
         * Runs every node (controller included) in a child JVM on this Kafka distribution's class path: brokers of
         * another Kafka version than this JVM's (3.7, 3.9...), or of this JVM's version for a test JVM whose own
         * kafka-clients differs. Null: the nodes run on this JVM's class path (the default, unless the system property
         * {@value KafkaDistribution#DEFAULT_PROPERTY} names a distribution).
         */
        public Builder distribution(KafkaDistribution kafka) {
            this.distribution = kafka;
            this.distributionSet = true;
            return this;
        }

        /** 1 = one combined broker+controller (node 0); N > 1 = brokers 0..N-1 plus one controller. */
        public Builder brokers(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("brokers must be >= 1: " + count);
            }
            this.brokers = count;
            return this;
        }

        /** {@code auto.create.topics.enable}; default false (tests create topics explicitly). */
        public Builder autoCreateTopics(boolean enabled) {
            this.autoCreateTopics = enabled;
            return this;
        }

        /** A broker config for every broker, applied over the testkit's defaults. */
        public Builder brokerConfig(String key, String value) {
            brokerConfigs.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        /** A controller config (for the controller, or the combined node). */
        public Builder controllerConfig(String key, String value) {
            controllerConfigs.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        /**
         * Per-broker configs applied last, over everything else (e.g. {@code listeners}, or
         * {@code listener.name.client.*} for SASL/SSL). Called at every start of a broker.
         */
        public Builder brokerConfigOverrides(Function<Integer, Map<String, String>> overrides) {
            this.brokerOverrides = Objects.requireNonNull(overrides);
            return this;
        }

        /**
         * Security protocol of the CLIENT listener (default PLAINTEXT); configure it with brokerConfig. Replaces an
         * earlier {@link #clientSecurity(ClientSecurity)}.
         */
        public Builder clientSecurityProtocol(String protocol) {
            this.clientSecurityProtocol = Objects.requireNonNull(protocol);
            this.clientSecurity = null;
            return this;
        }

        /**
         * Secures the CLIENT listener (protocol, key store, SASL mechanisms and their JAAS configs); INTERNAL stays
         * PLAINTEXT. {@link #brokerConfig} and {@link #brokerConfigOverrides} still apply over it. Replaces an
         * earlier {@link #clientSecurityProtocol(String)}.
         */
        public Builder clientSecurity(ClientSecurity security) {
            this.clientSecurity = Objects.requireNonNull(security);
            this.clientSecurityProtocol = security.protocol();
            return this;
        }

        /**
         * Makes a broker's CLIENT listener advertise {@code host:port} instead of its own address (e.g. a
         * closed loopback port, or an unresolvable name). Clients bootstrapping via {@link #bootstrapServers()}
         * still reach the broker; whatever they learn from metadata points there.
         */
        public Builder advertise(int brokerId, String host, int port) {
            advertised.put(brokerId, InetSocketAddress.createUnresolved(host, port));
            return this;
        }

        /** {@link #advertise(int, String, int) advertise(brokerId, "127.0.0.1", port)}. */
        public Builder advertisedPort(int brokerId, int port) {
            return advertise(brokerId, HOST, port);
        }

        /**
         * Puts a {@link FaultProxy} in front of each broker's CLIENT listener and makes the broker advertise
         * the proxy: once bootstrapped, clients talk to brokers only through {@link KafkaCluster#proxy(int)}.
         */
        public Builder withProxies() {
            this.proxies = true;
            return this;
        }

        /**
         * Broker {@code brokerId} reaches the KRaft controller through a {@link FaultProxy},
         * {@link KafkaCluster#controllerProxy(int)}, to make that broker's metadata lag (on a second controller
         * listener, {@code CONTROLLER_PROXIED}; brokers named here share one proxy). Needs a controller of its own
         * (2+ brokers, in-process or child JVMs).
         */
        public Builder withControllerProxy(int brokerId) {
            this.controllerProxies.add(brokerId);
            return this;
        }

        /**
         * Enforces ACLs: KRaft's {@code StandardAuthorizer} on every node, {@code allow.everyone.if.no.acl.found=false},
         * and {@value KafkaCluster#INTERNAL_PRINCIPAL} (the PLAINTEXT INTERNAL and CONTROLLER listeners: brokers,
         * controller, {@link KafkaCluster#admin()}) as the only super user. Clients on a SASL CLIENT listener see
         * what their ACLs allow ({@link KafkaCluster#allowTopic}); a PLAINTEXT CLIENT listener would be super user too.
         */
        public Builder withAuthorizer() {
            this.authorizer = true;
            return this;
        }

        /**
         * Brokers run in child JVMs (slower; enables {@link KafkaCluster#killBroker(int)}), each with
         * {@code -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}, or the JVM options the system property
         * {@code kmeta.testkit.child.jvmOptions} gives (separated by spaces, e.g. {@code -Xmx1g -XX:+UseG1GC}).
         */
        public Builder childProcesses(boolean enabled) {
            this.childProcesses = enabled;
            return this;
        }

        /** Where {@code kafka-<random>/} is created; default {@code target} of the working directory. */
        public Builder storageRoot(Path root) {
            this.storageRoot = Objects.requireNonNull(root);
            return this;
        }

        /** How long start and broker (re)starts may take; default 60 s. */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /**
         * Broker 0's CLIENT listener - what {@link KafkaCluster#bootstrapServers()} names - on this port of
         * 127.0.0.1, not on a free one picked at start: a cluster a program of one's own connects to at a known
         * address ({@code kmeta broker}). A port taken fails the start, naming it. Default: a free port.
         */
        public Builder clientPort(int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("clientPort must be 1..65535: " + port);
            }
            PortPicker others = this.portPicker;
            this.portPicker = (nodeId, listener) -> nodeId == 0 && CLIENT_LISTENER.equals(listener) ? port
                    : others.pick(nodeId, listener);
            return this;
        }

        /**
         * Where the listeners' ports come from (default {@link FreePorts#next()}). A test seam: a test may take the
         * port it hands out, as another process could between the pick and the bind.
         */
        Builder portPicker(PortPicker picker) {
            this.portPicker = Objects.requireNonNull(picker);
            return this;
        }

        /** A new, not yet started cluster with these settings. */
        public KafkaCluster build() {
            for (int id : advertised.keySet()) {
                if (id < 0 || id >= brokers) {
                    throw new IllegalArgumentException("advertise: no broker " + id);
                }
            }
            if (proxies && !advertised.isEmpty()) {
                throw new IllegalArgumentException("withProxies() and advertise() both set advertised addresses");
            }
            return new KafkaCluster(new ClusterSettings(this));
        }
    }
}
