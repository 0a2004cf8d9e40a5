package dev.kmeta.testkit;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.protocol.Errors;
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
    private static final Set<KafkaCluster> OPEN = ConcurrentHashMap.newKeySet();
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();
    static final int START_ATTEMPTS = 3;
    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(30);
    private static final long POLL_MS = 20;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(KafkaCluster::closeLeftovers, "kmeta-testkit-shutdown"));
    }

    private final Settings settings;
    private final String clusterId = Uuid.randomUuid().toString();
    private final List<Integer> brokerIds;
    private final Map<Integer, KafkaNode> nodes = new LinkedHashMap<>();
    private final Map<Integer, FaultProxy> proxies = new LinkedHashMap<>();
    private volatile Path storage;
    private volatile Admin admin;
    private volatile State state = State.NEW;
    private int controllerPort;

    private enum State { NEW, RUNNING, CLOSED }

    private KafkaCluster(Settings settings) {
        this.settings = settings;
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < settings.brokers; i++) {
            ids.add(i);
        }
        this.brokerIds = Collections.unmodifiableList(ids);
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
        OPEN.add(this);
        long begin = System.nanoTime();
        try {
            startWithRetries();
            state = State.RUNNING;
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
        LOG.info("Kafka cluster {} started in {} ms: {}, bootstrap {}", clusterId, millisSince(begin), shape(),
                bootstrapServers());
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
        boolean started = state == State.RUNNING || storage != null;
        state = State.CLOSED;
        if (!started) {
            return;
        }
        long begin = System.nanoTime();
        try {
            closeAdmin();
            stopAllNodes();
        } finally {
            proxies.values().forEach(FaultProxy::close);
            deleteStorage();
            OPEN.remove(this);
        }
        LOG.info("Kafka cluster {} closed in {} ms", clusterId, millisSince(begin));
    }

    /**
     * Stops a broker cleanly (controlled shutdown: its partitions' leadership moves away first). In a
     * single-node cluster this stops the controller too.
     */
    public synchronized void stopBroker(int brokerId) {
        KafkaNode node = runningBroker(brokerId);
        long begin = System.nanoTime();
        node.stop();
        LOG.info("broker {} stopped in {} ms", brokerId, millisSince(begin));
    }

    /** Kills a broker hard ({@code kill -9}); needs {@link Builder#childProcesses(boolean) child processes}. */
    public synchronized void killBroker(int brokerId) {
        KafkaNode node = runningBroker(brokerId);
        node.kill();
        LOG.info("broker {} killed", brokerId);
    }

    /**
     * Starts a stopped broker on its former ports and returns once it serves and every running broker sees it.
     * If another process took one of its ports meanwhile, it starts on new ports (logged at WARN; its proxy, if
     * any, follows it; {@link #bootstrapServers()} changes), up to {@value #START_ATTEMPTS} starts in all; a
     * combined node's CONTROLLER port included, whose failed bind Kafka reports by halting.
     */
    public synchronized void startBroker(int brokerId) {
        KafkaNode node = broker(brokerId);
        requireRunning();
        if (node.isRunning()) {
            throw new IllegalStateException("broker " + brokerId + " is running");
        }
        long begin = System.nanoTime();
        try {
            startOnFormerPorts(node);
        } catch (Exception e) {
            throw new IllegalStateException("broker " + brokerId + " did not start", e);
        }
        awaitBrokersSeeEachOther();
        LOG.info("broker {} started in {} ms", brokerId, millisSince(begin));
    }

    /**
     * Starts a broker on its former ports and, each time its start failed in a way a taken port explains (see
     * {@link #mayBePortRace}), on new ones, up to {@value #START_ATTEMPTS} starts in all.
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
                if (attempt == START_ATTEMPTS || !mayBePortRace(e)) {
                    throw e;
                }
                LOG.warn("broker {} did not start, maybe a port was taken ({}); starting on new ports", node.id,
                        e.toString());
                choosePorts(node);
            }
        }
    }

    /** Points the broker's proxy (if any) and the shared Admin at its ports, which may have changed. */
    private void followMovedPorts(KafkaNode node) {
        FaultProxy proxy = proxies.get(node.id);
        if (proxy != null) {
            proxy.retarget(HOST, node.clientPort);
        }
        renewAdmin();
    }

    /**
     * New ports for each of a node's listeners (a combined node's CONTROLLER listener too), chosen before it
     * starts: the controller's is named in every node's {@code controller.quorum.voters}, and a restarted broker
     * binds its former ports again. They come from {@link Settings#portPicker}, by default {@link FreePorts#next()}:
     * outside the ephemeral range, where no outgoing connection takes them.
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

    /** A new shared Admin: its bootstrap list names the INTERNAL ports, which may have changed. */
    private void renewAdmin() {
        closeAdmin();
        admin = Admin.create(adminConfig());
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
        KafkaNode controller = nodes.get(CONTROLLER_ID);
        if (controller == null) {
            restartBroker(brokerIds.get(0));
            return;
        }
        long begin = System.nanoTime();
        controller.stop();
        long stopped = System.nanoTime();
        try {
            startNode(controller); // on its former port: the brokers' controller.quorum.voters name it
        } catch (Exception e) {
            throw new IllegalStateException("the controller did not start again", e);
        }
        waitUntil("the controller leads the quorum again", () -> {
            try {
                return admin().describeMetadataQuorum().quorumInfo().get(POLL_MS * 50, TimeUnit.MILLISECONDS)
                        .leaderId() == CONTROLLER_ID;
            } catch (ExecutionException | TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the controller", e);
            }
        }, () -> "no quorum leader");
        awaitBrokersSeeEachOther();
        LOG.info("controller stopped in {} ms, serving again {} ms later", TimeUnit.NANOSECONDS.toMillis(
                stopped - begin), millisSince(stopped));
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
        NewTopic topic = new NewTopic(name, partitions, (short) replicationFactor).configs(configs);
        await(admin().createTopics(List.of(topic)).all(), "create topic " + name);
        awaitTopic(name, partitions);
    }

    /** Until the leader of every partition answers ListOffsets (the Admin client retries until then). */
    private void awaitLeadersServe(String name, int partitions) {
        Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(name, p), OffsetSpec.latest());
        }
        await(admin().listOffsets(latest).all(), "leaders of " + name + " serving");
    }

    /** Grows a topic to {@code totalPartitions} and waits until every running broker knows them, led and serving. */
    public void addPartitions(String name, int totalPartitions) {
        await(admin().createPartitions(Map.of(name, NewPartitions.increaseTo(totalPartitions))).all(),
                "add partitions to " + name);
        awaitTopic(name, totalPartitions);
    }

    /** Deletes a topic and waits until no running broker knows it any more. */
    public void deleteTopic(String name) {
        await(admin().deleteTopics(List.of(name)).all(), "delete topic " + name);
        short unknown = Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
        awaitAllBrokers("topic " + name + " deleted", List.of(name),
                answer -> answer.topics().get(name) == null || answer.topics().get(name).errorCode() == unknown);
    }

    /** The leader of a partition as the cluster's Admin sees it now, or -1 if it has none. */
    public int leader(String topic, int partition) {
        TopicDescription description = await(admin().describeTopics(List.of(topic)).allTopicNames(),
                "describe topic " + topic).get(topic);
        for (TopicPartitionInfo info : description.partitions()) {
            if (info.partition() == partition) {
                return info.leader() == null || info.leader().isEmpty() ? -1 : info.leader().id();
            }
        }
        throw new IllegalArgumentException("topic " + topic + " has no partition " + partition);
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
        ClientSecurity security = clientSecurity();
        if (!security.isSasl()) {
            throw new IllegalStateException("the CLIENT listener is " + security.protocol() + ", not SASL");
        }
        Map<String, Object> login = security.clientProperties(mechanism, user, password);
        ScramMechanism scram = ScramMechanism.fromMechanismName(mechanism);
        if (scram == ScramMechanism.UNKNOWN) {
            throw new IllegalArgumentException("not a SCRAM mechanism: " + mechanism);
        }
        await(admin().alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                new ScramCredentialInfo(scram, 4096), password))).all(), "create SCRAM user " + user);
        awaitLogin("SCRAM user " + user + " (" + mechanism + ") accepted", login);
    }

    /**
     * Waits until every running broker's CLIENT listener accepts a connection made with these client properties
     * (TLS handshake and SASL authentication, as a client does them).
     */
    public void awaitLogin(String what, Map<String, Object> clientProps) {
        Map<Integer, Object> last = new ConcurrentHashMap<>();
        waitUntil(what, () -> {
            boolean all = true;
            for (int id : runningBrokerIds()) {
                LoginProbe.Outcome outcome = LoginProbe.login(brokerAddress(id), clientProps, Duration.ofSeconds(5));
                last.put(id, outcome.ready() ? "ok" : outcome.authFailure() != null
                        ? outcome.authFailure().toString() : outcome.other());
                all &= outcome.ready();
            }
            return all;
        }, () -> "last outcomes: " + last);
    }

    // ------------------------------------------------------------------ ACLs

    /**
     * Allows a SASL user {@code operations} on one topic (literal name, from any host), with the shared
     * {@link #admin()}; returns once the ACLs are committed and listed back by {@code describeAcls}. Brokers apply
     * them from the metadata log shortly after: a test that needs them enforced waits for that as the user would.
     * Needs {@link Builder#withAuthorizer()}.
     */
    public void allowTopic(String user, String topic, AclOperation... operations) {
        ResourcePattern resource = new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL);
        String principal = "User:" + user;
        List<AclBinding> bindings = new ArrayList<>();
        for (AclOperation operation : operations) {
            bindings.add(new AclBinding(resource, new AccessControlEntry(principal, "*", operation,
                    AclPermissionType.ALLOW)));
        }
        await(admin().createAcls(bindings).all(), "create ACLs " + bindings);
        AclBindingFilter filter = new AclBindingFilter(new ResourcePatternFilter(ResourceType.TOPIC, topic,
                PatternType.LITERAL), new AccessControlEntryFilter(principal, null, AclOperation.ANY,
                AclPermissionType.ANY));
        Object[] last = new Object[1];
        waitUntil("ACLs of " + principal + " on topic " + topic + " listed", () -> {
            Collection<AclBinding> listed = await(admin().describeAcls(filter).values(),
                    "describe ACLs of " + principal);
            last[0] = listed;
            return listed.containsAll(bindings);
        }, () -> "last listed: " + last[0]);
    }

    // ------------------------------------------------------------------ queries

    /** {@code 127.0.0.1:port,...} of every broker's CLIENT listener (real ports, never proxies). */
    public String bootstrapServers() {
        return brokerIds.stream().map(id -> HOST + ":" + broker(id).clientPort).collect(Collectors.joining(","));
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
        return new InetSocketAddress(LOOPBACK, broker(brokerId).clientPort);
    }

    /** The proxy in front of a broker; needs {@link Builder#withProxies()}. */
    public FaultProxy proxy(int brokerId) {
        broker(brokerId);
        FaultProxy proxy = proxies.get(brokerId);
        if (proxy == null) {
            throw new IllegalStateException("no proxies: build the cluster with withProxies()");
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
        return brokerIds.stream().filter(id -> broker(id).isRunning()).collect(Collectors.toUnmodifiableList());
    }

    /** The cluster id the storage was formatted with. */
    public String clusterId() {
        return clusterId;
    }

    /** The cluster's storage directory ({@code <root>/kafka-<random>}); null before start. */
    public Path storageDirectory() {
        return storage;
    }

    /**
     * A shared Admin client on the INTERNAL listeners (unaffected by proxies and advertised overrides), closed
     * with the cluster. Do not close it.
     */
    public Admin admin() {
        Admin current = admin;
        if (current == null) {
            throw new IllegalStateException("cluster " + clusterId + " is not running (" + state + ")");
        }
        return current;
    }

    @Override
    public String toString() {
        return "KafkaCluster[" + clusterId + ", " + shape() + ", " + state + "]";
    }

    // ------------------------------------------------------------------ starting

    /**
     * Starts the cluster, and again from scratch on new ports each time a start failed in a way a taken port
     * explains, up to {@value #START_ATTEMPTS} starts; the last failure carries the earlier ones as suppressed.
     */
    private void startWithRetries() {
        List<RuntimeException> earlier = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            try {
                startOnce();
                return;
            } catch (RuntimeException e) {
                if (!mayBePortRace(e)) {
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
        List<KafkaNode> all = new ArrayList<>(nodes.values());
        inParallel("start", all, node -> {
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
        awaitBrokersSeeEachOther();
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

    private Path nodeDir(int id) {
        return storage.resolve("node-" + id);
    }

    /**
     * Starts a node; a failed start is rethrown with the evidence of its ports. Kafka's controller reports a
     * failed bind to a fault handler, which logs it and halts ({@link KafkaExit.Called}, without the cause), and a
     * broker buries it a few causes deep. So after a failure (the node is stopped by now) each of the node's ports
     * is bound once: if a port is taken, or the start halted, the failure is wrapped in one that says so in its
     * message, with each taken port attached as a suppressed {@link BindException} naming it.
     */
    private void startNode(KafkaNode node) throws Exception {
        try {
            node.start(configOf(node), settings.startTimeout);
        } catch (Exception | Error e) {
            List<BindException> taken = takenPorts(node);
            if (taken.isEmpty() && !anyInChain(e, t -> t instanceof KafkaExit.Called)) {
                throw e;
            }
            IllegalStateException explained = new IllegalStateException(explanation(node, taken), e);
            taken.forEach(explained::addSuppressed);
            throw explained;
        }
    }

    /** The node's listener ports that cannot be bound now, each as a BindException naming it. */
    private List<BindException> takenPorts(KafkaNode node) {
        List<BindException> taken = new ArrayList<>();
        portsOf(node).forEach((listener, port) -> {
            IOException failure = FreePorts.bindFailure(port);
            if (failure instanceof BindException) {
                BindException named = new BindException("port " + port + " (" + listener + " listener of node "
                        + node.id + ") was taken: " + failure.getMessage());
                named.initCause(failure);
                taken.add(named);
            }
        });
        return taken;
    }

    private String explanation(KafkaNode node, List<BindException> taken) {
        if (taken.isEmpty()) {
            return "node " + node.id + " did not start: Kafka called Exit during its start, and none of its ports "
                    + portsOf(node) + " is taken now (taken for a moment only, or another fault: see the log)";
        }
        return "node " + node.id + " did not start: " + taken.stream().map(Throwable::getMessage)
                .collect(Collectors.joining("; "));
    }

    /** The ports the node's listeners are configured with, by listener name. */
    private Map<String, Integer> portsOf(KafkaNode node) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        if (node.role.isBroker()) {
            ports.put(CLIENT_LISTENER, node.clientPort);
            ports.put(INTERNAL_LISTENER, node.internalPort);
        }
        if (node.role != KafkaNode.Role.BROKER) {
            ports.put(CONTROLLER_LISTENER, controllerPort);
        }
        return ports;
    }

    /**
     * Whether a start failure may come from a port taken between its pick and the bind, so that a start on new
     * ports may succeed: a bind failure, or Kafka halting during the start (how its controller reports one).
     */
    private static boolean mayBePortRace(Throwable failure) {
        return anyInChain(failure, t -> t instanceof BindException || t instanceof KafkaExit.Called
                || String.valueOf(t.getMessage()).contains("Address already in use"));
    }

    /** Whether the throwable, one of its causes or of their suppressed throwables matches. */
    private static boolean anyInChain(Throwable top, Predicate<Throwable> test) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> pending = new ArrayDeque<>(List.of(top));
        while (!pending.isEmpty()) {
            Throwable t = pending.pop();
            if (!seen.add(t)) {
                continue;
            }
            if (test.test(t)) {
                return true;
            }
            if (t.getCause() != null) {
                pending.push(t.getCause());
            }
            pending.addAll(Arrays.asList(t.getSuppressed()));
        }
        return false;
    }

    private Map<String, Object> adminConfig() {
        String internal = brokerIds.stream().map(id -> HOST + ":" + broker(id).internalPort)
                .collect(Collectors.joining(","));
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, internal);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "kmeta-testkit-admin");
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) OPERATION_TIMEOUT.toMillis());
        config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        config.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200);
        return config;
    }

    // ------------------------------------------------------------------ node configuration

    private Map<String, String> configOf(KafkaNode node) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("node.id", Integer.toString(node.id));
        config.put("process.roles", node.role.processRoles);
        config.put("controller.quorum.voters", controllerId() + "@" + HOST + ":" + controllerPort);
        config.put("controller.listener.names", CONTROLLER_LISTENER);
        config.put("listener.security.protocol.map", CLIENT_LISTENER + ":" + settings.clientSecurityProtocol + ","
                + INTERNAL_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        config.put("log.dirs", node.dir.resolve("data").toString());
        config.put("broker.session.timeout.ms", "2000");
        config.put("broker.heartbeat.interval.ms", "200");
        config.put("listeners", listeners(node));
        if (settings.authorizer) {
            config.put("authorizer.class.name", STANDARD_AUTHORIZER);
            config.put("super.users", INTERNAL_PRINCIPAL);
            config.put("allow.everyone.if.no.acl.found", "false");
        }
        if (node.role.isBroker()) {
            brokerDefaults(node, config);
            if (settings.clientSecurity != null) {
                config.putAll(settings.clientSecurity.brokerConfigs());
            }
            config.putAll(settings.brokerConfigs);
            config.putAll(settings.brokerOverrides.apply(node.id));
        }
        if (!node.role.isBroker() || node.role == KafkaNode.Role.COMBINED) {
            config.putAll(settings.controllerConfigs);
        }
        return config;
    }

    private int controllerId() {
        return nodes.containsKey(CONTROLLER_ID) ? CONTROLLER_ID : brokerIds.get(0);
    }

    private String listeners(KafkaNode node) {
        List<String> listeners = new ArrayList<>();
        if (node.role.isBroker()) {
            listeners.add(CLIENT_LISTENER + "://" + HOST + ":" + node.clientPort);
            listeners.add(INTERNAL_LISTENER + "://" + HOST + ":" + node.internalPort);
        }
        if (node.role != KafkaNode.Role.BROKER) {
            listeners.add(CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort);
        }
        return String.join(",", listeners);
    }

    private void brokerDefaults(KafkaNode node, Map<String, String> config) {
        String rf = Integer.toString(Math.min(3, settings.brokers));
        String minIsr = Integer.toString(Math.min(2, Math.min(3, settings.brokers)));
        config.put("inter.broker.listener.name", INTERNAL_LISTENER);
        String advertised = advertisedClientAddress(node);
        if (advertised != null) {
            config.put("advertised.listeners", CLIENT_LISTENER + "://" + advertised + ","
                    + INTERNAL_LISTENER + "://" + HOST + ":" + node.internalPort);
        }
        config.put("auto.create.topics.enable", Boolean.toString(settings.autoCreateTopics));
        config.put("offsets.topic.replication.factor", rf);
        config.put("offsets.topic.num.partitions", "5");
        config.put("transaction.state.log.replication.factor", rf);
        config.put("transaction.state.log.min.isr", minIsr);
        config.put("transaction.state.log.num.partitions", "5");
        config.put("share.coordinator.state.topic.replication.factor", rf);
        config.put("share.coordinator.state.topic.min.isr", minIsr);
        config.put("share.coordinator.state.topic.num.partitions", "5");
        config.put("group.initial.rebalance.delay.ms", "0");
        config.put("log.cleaner.dedupe.buffer.size", "2097152");
        config.put("num.network.threads", "2");
        config.put("num.io.threads", "4");
        config.put("background.threads", "4");
        config.put("num.recovery.threads.per.data.dir", "1");
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

    // ------------------------------------------------------------------ waiting

    private void awaitTopic(String name, int partitions) {
        awaitTopicMetadata(name, partitions);
        awaitLeadersServe(name, partitions);
    }

    private void awaitTopicMetadata(String name, int partitions) {
        awaitAllBrokers("topic " + name + " with " + partitions + " partitions, all led", List.of(name), answer -> {
            MetadataProbe.TopicState topic = answer.topics().get(name);
            return topic != null && topic.errorCode() == 0 && topic.partitions() == partitions
                    && topic.leaderless() == 0;
        });
    }

    private void awaitBrokersSeeEachOther() {
        Set<Integer> running = Set.copyOf(runningBrokerIds());
        awaitAllBrokers("brokers " + running + " see each other", List.of(),
                answer -> answer.brokers().containsAll(running));
    }

    /**
     * Waits until every running broker's metadata names {@code leaderId} as the partition's leader (the Admin client
     * asks only one broker; the others, the new leader among them, learn an election a little later).
     */
    public void awaitLeaderEverywhere(String topic, int partition, int leaderId) {
        awaitAllBrokers("broker " + leaderId + " leads " + topic + "-" + partition + " for every broker",
                List.of(topic), answer -> {
                    MetadataProbe.TopicState t = answer.topics().get(topic);
                    return t != null && Integer.valueOf(leaderId).equals(t.leaders().get(partition));
                });
    }

    /** Polls every running broker (INTERNAL listener) until each answer satisfies the condition. */
    private void awaitAllBrokers(String what, List<String> topics, Predicate<MetadataProbe.Answer> ok) {
        Map<Integer, Object> last = new ConcurrentHashMap<>();
        waitUntil(what, () -> {
            boolean all = true;
            for (int id : runningBrokerIds()) {
                try {
                    MetadataProbe.Answer answer = MetadataProbe.ask(
                            new InetSocketAddress(LOOPBACK, broker(id).internalPort), topics);
                    last.put(id, answer);
                    all &= ok.test(answer);
                } catch (IOException | RuntimeException e) {
                    last.put(id, e.toString());
                    all = false;
                }
            }
            return all;
        }, () -> "last answers: " + last);
    }

    private static void waitUntil(String what, BooleanSupplier condition, Supplier<String> evidence) {
        long deadline = System.nanoTime() + OPERATION_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + OPERATION_TIMEOUT.toSeconds()
                        + " s waiting for " + what + "; " + evidence.get());
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    private static <T> T await(KafkaFuture<T> future, String what) {
        try {
            return future.get(OPERATION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + what, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " timed out after " + OPERATION_TIMEOUT.toSeconds() + " s", e);
        }
    }

    // ------------------------------------------------------------------ stopping

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
            inParallel("stop", group, node -> {
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

    /**
     * JVM shutdown hook: closes clusters left open (e.g. Ctrl-C in a demo), each from a daemon thread, and gives
     * up after a bounded time so that a cluster stuck in start() cannot hang the JVM's exit.
     */
    private static void closeLeftovers() {
        List<Thread> closers = new ArrayList<>();
        for (KafkaCluster cluster : new ArrayList<>(OPEN)) {
            LOG.warn("closing {} left open at JVM exit", cluster);
            Thread closer = new Thread(cluster::close, "kmeta-testkit-close-" + cluster.clusterId);
            closer.setDaemon(true);
            closer.start();
            closers.add(closer);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (Thread closer : closers) {
            try {
                closer.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    /** A task on one node that may throw. */
    private interface NodeTask {
        Void run(KafkaNode node) throws Exception;
    }

    /** Runs a task on every node in parallel (daemon threads); the first failure is rethrown. */
    private void inParallel(String what, List<KafkaNode> group, NodeTask task, Duration timeout) {
        if (group.isEmpty()) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(group.size(), runnable -> {
            Thread thread = new Thread(runnable, "kmeta-testkit-" + what + "-" + THREAD_IDS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (KafkaNode node : group) {
                futures.add(pool.submit(() -> task.run(node)));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            for (int i = 0; i < futures.size(); i++) {
                awaitNode(futures.get(i), group.get(i), what, deadline);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void awaitNode(Future<Void> future, KafkaNode node, String what, long deadlineNanos) {
        try {
            future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new IllegalStateException(what + " of node " + node.id + " failed: " + cause, cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " of node " + node.id + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + what + " of node " + node.id, e);
        }
    }

    private KafkaNode broker(int brokerId) {
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
        requireRunning();
        KafkaNode node = broker(brokerId);
        if (!node.isRunning()) {
            throw new IllegalStateException("broker " + brokerId + " is not running");
        }
        return node;
    }

    private void requireRunning() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("cluster " + clusterId + " is " + state);
        }
    }

    private String shape() {
        String where = settings.distribution != null ? " (" + settings.distribution + ", child JVMs)"
                : settings.childProcesses ? " (child JVMs)" : "";
        return nodes.containsKey(CONTROLLER_ID)
                ? settings.brokers + " brokers + 1 controller" + where
                : "1 combined broker+controller" + where;
    }

    /** The Kafka version the nodes run: their distribution's, or this JVM's kafka_2.13 (in-process). */
    public String kafkaVersion() {
        return settings.distribution != null ? settings.distribution.version() : inProcessVersion();
    }

    /** This JVM's kafka_2.13 version, from its jar's name (e.g. kafka_2.13-4.4.0.jar), or "unknown". */
    private static String inProcessVersion() {
        try {
            String jar = kafka.Kafka.class.getProtectionDomain().getCodeSource().getLocation().getPath();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("kafka_2\\.13-([^/]+)\\.jar$").matcher(jar);
            return m.find() ? m.group(1) : "unknown";
        } catch (RuntimeException | LinkageError e) {
            return "unknown";
        }
    }

    /** The distribution the nodes run, or null when they run on this JVM's own class path. */
    public KafkaDistribution distribution() {
        return settings.distribution;
    }

    private static long millisSince(long beginNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beginNanos);
    }

    // ------------------------------------------------------------------ builder

    /** Chooses the port of one listener of one node before the node starts. */
    @FunctionalInterface
    interface PortPicker {
        int pick(int nodeId, String listener);
    }

    /** Immutable copy of a builder's settings. */
    private static final class Settings {
        final int brokers;
        final boolean autoCreateTopics;
        final boolean childProcesses;
        final boolean proxies;
        final boolean authorizer;
        final String clientSecurityProtocol;
        final ClientSecurity clientSecurity;
        final Path storageRoot;
        final Duration startTimeout;
        final Map<String, String> brokerConfigs;
        final Map<String, String> controllerConfigs;
        final Map<Integer, InetSocketAddress> advertised;
        final Function<Integer, Map<String, String>> brokerOverrides;
        final PortPicker portPicker;
        final KafkaDistribution distribution;

        Settings(Builder b) {
            brokers = b.brokers;
            autoCreateTopics = b.autoCreateTopics;
            childProcesses = b.childProcesses;
            proxies = b.proxies;
            authorizer = b.authorizer;
            clientSecurityProtocol = b.clientSecurity != null
                    ? b.clientSecurity.protocol() : b.clientSecurityProtocol;
            // null: a protocol configured by hand (clientSecurityProtocol + brokerConfig), unknown to the testkit
            clientSecurity = b.clientSecurity != null ? b.clientSecurity
                    : "PLAINTEXT".equals(b.clientSecurityProtocol) ? ClientSecurity.plaintext() : null;
            storageRoot = b.storageRoot;
            startTimeout = b.startTimeout;
            brokerConfigs = Map.copyOf(b.brokerConfigs);
            controllerConfigs = Map.copyOf(b.controllerConfigs);
            advertised = Map.copyOf(b.advertised);
            brokerOverrides = b.brokerOverrides;
            portPicker = b.portPicker;
            distribution = b.distributionSet ? b.distribution : KafkaDistribution.fromDefaultProperty();
        }
    }

    /**
     * Configures a {@link KafkaCluster}. Not thread-safe; {@link #build()} copies the settings, so one builder
     * may build several clusters.
     */
    public static final class Builder {
        private int brokers = 1;
        private boolean autoCreateTopics;
        private boolean childProcesses;
        private boolean proxies;
        private boolean authorizer;
        private String clientSecurityProtocol = "PLAINTEXT";
        private ClientSecurity clientSecurity;
        private Path storageRoot = Paths.get("target");
        private Duration startTimeout = Duration.ofSeconds(60);
        private final Map<String, String> brokerConfigs = new LinkedHashMap<>();
        private final Map<String, String> controllerConfigs = new LinkedHashMap<>();
        private final Map<Integer, InetSocketAddress> advertised = new LinkedHashMap<>();
        private Function<Integer, Map<String, String>> brokerOverrides = id -> Map.of();
        private PortPicker portPicker = (nodeId, listener) -> FreePorts.next();
        private KafkaDistribution distribution;
        private boolean distributionSet;

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
         * Enforces ACLs: KRaft's {@code StandardAuthorizer} on every node, {@code allow.everyone.if.no.acl.found=false},
         * and {@value KafkaCluster#INTERNAL_PRINCIPAL} (the PLAINTEXT INTERNAL and CONTROLLER listeners: brokers,
         * controller, {@link KafkaCluster#admin()}) as the only super user. Clients on a SASL CLIENT listener see
         * what their ACLs allow ({@link KafkaCluster#allowTopic}); a PLAINTEXT CLIENT listener would be super user too.
         */
        public Builder withAuthorizer() {
            this.authorizer = true;
            return this;
        }

        /** Brokers run in child JVMs (slower; enables {@link KafkaCluster#killBroker(int)}). */
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
            return new KafkaCluster(new Settings(this));
        }
    }
}
