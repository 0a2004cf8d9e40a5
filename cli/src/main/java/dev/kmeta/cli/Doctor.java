package dev.kmeta.cli;

import org.apache.kafka.common.KafkaException;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.ConnectionEvidence.Problem;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.time.Duration;

/**
 * The doctor's checklist, run in order, each check printed as it is decided: bootstrap DNS, TCP to each bootstrap
 * address, the TLS/SASL handshake (when configured), a metadata response, every advertised broker address reachable,
 * the topic (authorized, exists, every partition led) and the cluster id. A check whose premise failed is skipped.
 * The metadata check names the controller as {@link ControllerView} tells it: on KRaft the metadata quorum's leader
 * (asked with {@link ControllerProbe}), never the random live broker KRaft brokers put in Metadata answers.
 * Before the client's checks, a {@link ListenerProbe} asks the first reachable bootstrap address what it speaks, so
 * that a security.protocol that does not fit the port is named as such, not as a wrong password.
 * Not thread-safe; one per run.
 */
final class Doctor {
    private static final String HANDSHAKE = "TLS/SASL handshake";
    private static final String METADATA = "metadata response";
    private static final String ADVERTISED = "advertised broker addresses reachable";
    private static final String CLUSTER_ID = "cluster id";
    /** How long the question to the metadata quorum may take at most. */
    private static final long QUORUM_TIMEOUT_MAX_MS = 3_000;

    private final Connection conn;
    private final KafkaMetadata metadata;
    private final HostResolverHook resolver;
    private final Reachability net;
    private final Checklist checks;
    private final String topic;
    private final String expectedClusterId;
    private final long timeoutMs;

    /** The bootstrap address the listener probe asked, and what it found. */
    private HostPort probed;
    private InetSocketAddress probedAddress;
    private ListenerProbe.Result listener;

    /** What the metadata step saw. */
    private Cluster first;
    private Diagnosis diagnosis;
    private String fatal;

    /**
     * @param metadata the kmeta client the metadata and topic checks use, started by the caller (so that settings it
     *                 cannot start on are refused before any check); it connects while DNS and TCP are checked
     */
    Doctor(Connection conn, KafkaMetadata metadata, HostResolverHook resolver, Checklist checks, String topic,
           String expectedClusterId, long timeoutMs) {
        this.conn = conn;
        this.metadata = metadata;
        this.resolver = resolver;
        this.net = new Reachability(resolver, (int) Math.min(timeoutMs, 5_000));
        this.checks = checks;
        this.topic = topic;
        this.expectedClusterId = expectedClusterId;
        this.timeoutMs = timeoutMs;
    }

    /** Runs every check; returns the number of failures. */
    int run() {
        Map<HostPort, InetAddress> resolved = dns();
        if (resolved.isEmpty()) {
            return skipFromHandshake("no bootstrap host name resolves");
        }
        if (tcp(resolved) == 0) {
            return skipFromHandshake("no bootstrap address accepts connections");
        }
        if (listenerDoesNotFit()) {
            return checks.failures();
        }
        try (ControllerProbe quorum = new ControllerProbe(conn.props(), "kmeta-doctor-quorum")) {
            awaitBrokers(metadata);
            boolean secure = handshake(metadata.evidence());
            metadataResponse(metadata.evidence(), secure, quorum);
            if (first == null) {
                checks.skip(ADVERTISED, "no metadata");
                skipTopic("no metadata");
                checks.skip(CLUSTER_ID, "no metadata");
                return checks.failures();
            }
            if (advertised(first) == 0) {
                skipTopic("no advertised broker address is reachable");
            } else {
                topic(metadata);
            }
            clusterId(metadata.fetch());
        }
        return checks.failures();
    }

    // ---------------------------------------------------------------- bootstrap

    private Map<HostPort, InetAddress> dns() {
        Map<String, InetAddress> byHost = new LinkedHashMap<>();
        Map<HostPort, InetAddress> result = new LinkedHashMap<>();
        for (HostPort hp : conn.bootstrap()) {
            if (!byHost.containsKey(hp.host())) {
                byHost.put(hp.host(), resolveOrReport(hp.host()));
            }
            InetAddress address = byHost.get(hp.host());
            if (address != null) {
                result.put(hp, address);
            }
        }
        return result;
    }

    private InetAddress resolveOrReport(String host) {
        String check = "DNS: bootstrap host " + host + " resolves";
        try {
            InetAddress address = net.resolve(host);
            checks.ok(check, host.equals(address.getHostAddress()) ? "an IP address, nothing to resolve"
                    : address.getHostAddress());
            return address;
        } catch (UnknownHostException e) {
            checks.fail(check, "it does not (" + Connection.oneLine(e) + ")", "check the host name in "
                    + "--bootstrap-server and this machine's DNS (resolv.conf, /etc/hosts, VPN)");
            return null;
        }
    }

    /** Connects to each resolved bootstrap address; returns how many accept. */
    private int tcp(Map<HostPort, InetAddress> resolved) {
        int reachable = 0;
        for (Map.Entry<HostPort, InetAddress> e : resolved.entrySet()) {
            String check = "TCP connect to bootstrap " + e.getKey();
            String problem = net.connectProblem(e.getValue(), e.getKey().port());
            if (problem == null) {
                reachable++;
                if (probed == null) {
                    probed = e.getKey();
                    probedAddress = new InetSocketAddress(e.getValue(), e.getKey().port());
                }
                checks.ok(check, "accepts connections");
            } else {
                checks.fail(check, problem, "check the port is a broker listener (listeners=...), that the "
                        + "broker runs, and firewalls between here and " + e.getKey().host());
            }
        }
        return reachable;
    }

    /**
     * Asks the first bootstrap address that accepts connections what it speaks ({@link ListenerProbe}); when that
     * does not fit {@code security.protocol} - SASL or TLS expected but the listener speaks PLAINTEXT, TLS expected
     * but it speaks SASL_PLAINTEXT, PLAINTEXT expected but it wants SASL - fails the check that would otherwise show
     * a misleading cause (a wrong password; connections that keep dropping) and skips the rest. Only a clear-text
     * answer decides: a listener that gives none (TLS, a proxy) is left to the client's own checks.
     *
     * @return true when it did not fit (the report is complete)
     */
    private boolean listenerDoesNotFit() {
        Object mechanism = conn.props().get("sasl.mechanism");
        listener = ListenerProbe.probe(probedAddress, mechanism == null ? "GSSAPI" : mechanism.toString().trim(),
                net.connectTimeoutMs());
        ListenerFit.Mismatch m = ListenerFit.of(conn.securityProtocol(), probed, listener);
        if (m == null) {
            return false;
        }
        if (m.handshake()) {
            checks.fail(HANDSHAKE + " (" + conn.securityProtocol() + ")", m.seen(), m.fix());
            checks.skip(METADATA, "the handshake failed");
            skipAfterMetadata("the handshake failed");
        } else {
            checks.fail(METADATA, m.seen(), m.fix());
            skipAfterMetadata("the listener expects SASL");
        }
        return true;
    }

    private void skipAfterMetadata(String why) {
        checks.skip(ADVERTISED, why);
        skipTopic(why);
        checks.skip(CLUSTER_ID, why);
    }

    private int skipFromHandshake(String why) {
        if (isSecure()) {
            checks.skip(HANDSHAKE, why);
        }
        checks.skip(METADATA, why);
        checks.skip(ADVERTISED, why);
        skipTopic(why);
        checks.skip(CLUSTER_ID, why);
        return checks.failures();
    }

    // ---------------------------------------------------------------- metadata

    private void awaitBrokers(KafkaMetadata metadata) {
        Deadline deadline = metadata.newDeadline(Duration.ofMillis(timeoutMs));
        try {
            int version = metadata.requestUpdate();
            while (metadata.fetch().nodes().isEmpty()) {
                metadata.awaitUpdate(version, deadline);
                version = metadata.fetch().version();
            }
            first = metadata.fetch();
        } catch (KafkaMetadataTimeoutException e) {
            diagnosis = e.diagnosis();
            fatal = diagnosis == null ? e.getMessage() : null;
        } catch (KafkaException e) { // authentication, TLS, closed: the Kafka types, kmeta's diagnosis inside
            diagnosis = Diagnosis.from(e).orElse(null);
            fatal = Connection.oneLine(e);
        }
    }

    private boolean isSecure() {
        return !"PLAINTEXT".equals(conn.securityProtocol());
    }

    /** The handshake check (secure protocols only); returns false when it failed. */
    private boolean handshake(ConnectionEvidence evidence) {
        if (!isSecure()) {
            return true;
        }
        String check = HANDSHAKE + " (" + conn.securityProtocol() + ")";
        Diagnosis.Cause cause = diagnosis == null ? null : diagnosis.cause();
        if (cause == Diagnosis.Cause.TLS_HANDSHAKE_FAILED || cause == Diagnosis.Cause.AUTHENTICATION_FAILED) {
            checks.fail(check, diagnosis.seen(), diagnosis.fix());
            return false;
        }
        for (ConnectionEvidence.Record r : evidence.records()) {
            Problem p = r.lastProblem();
            if (r.failingNow() && (p == Problem.TLS_HANDSHAKE || p == Problem.AUTHENTICATION)) {
                checks.fail(check, r.toString(), p == Problem.TLS_HANDSHAKE
                        ? "check ssl.truststore.* trusts the brokers' CA and the certificate names the host"
                        : "check sasl.mechanism and the user and password in sasl.jaas.config");
                return false;
            }
        }
        if (first == null && fatal != null) {
            checks.fail(check, fatal, "check the ssl.* and sasl.* settings in --command-config");
            return false;
        }
        if (first == null) {
            checks.skip(check, "no connection got as far as the handshake");
            return true;
        }
        checks.ok(check, "with " + answered(evidence));
        return true;
    }

    private void metadataResponse(ConnectionEvidence evidence, boolean handshakeOk, ControllerProbe quorum) {
        if (first != null) {
            // Asked only now that a client got through (so with working credentials).
            ControllerProbe.Answer answer = quorum.askNow(Math.min(timeoutMs, QUORUM_TIMEOUT_MAX_MS));
            checks.ok(METADATA, "from " + answered(evidence) + ": " + first.nodes().size() + " broker(s), "
                    + ControllerView.of(answer, null, first).describe());
        } else if (!handshakeOk) {
            checks.skip(METADATA, "the handshake failed");
        } else if (diagnosis != null && !isSecure() && listener != null
                && listener.kind() == ListenerProbe.Kind.NO_CLEAR_TEXT_ANSWER) {
            checks.fail(METADATA, "none within " + timeoutMs + " ms: " + diagnosis.cause() + ": " + diagnosis.seen()
                    + "; " + probed + " does not speak clear-text Kafka (" + listener.detail() + ")", "if it is a TLS "
                    + "listener, set security.protocol=SSL (or SASL_SSL) and ssl.truststore.* in --command-config; "
                    + "else " + diagnosis.fix());
        } else if (diagnosis != null) {
            checks.fail(METADATA, "none within " + timeoutMs + " ms: " + diagnosis.cause() + ": " + diagnosis.seen(),
                    diagnosis.fix());
        } else {
            checks.fail(METADATA, "none: " + fatal, "check the client settings and the broker logs");
        }
    }

    private static String answered(ConnectionEvidence evidence) {
        String addresses = evidence.records().stream().filter(ConnectionEvidence.Record::everAnswered)
                .map(ConnectionEvidence.Record::address).distinct().sorted().collect(Collectors.joining(", "));
        return addresses.isEmpty() ? "the bootstrap" : addresses;
    }

    /** Connects to every advertised broker address; returns how many accept. */
    private int advertised(Cluster cluster) {
        int reachable = 0;
        for (Node n : cluster.nodes()) {
            String check = "advertised broker " + n.id() + " at " + n.address() + " reachable";
            String problem = net.reachProblem(n.host(), n.port());
            if (problem == null) {
                reachable++;
                checks.ok(check, "accepts connections");
            } else {
                checks.fail(check, problem, "the bootstrap answered, so the network works: set advertised.listeners "
                        + "of broker " + n.id() + " to an address this client can reach (container-internal or "
                        + "private addresses are the usual culprit)");
            }
        }
        return reachable;
    }

    // ---------------------------------------------------------------- topic and cluster id

    private String authorizedCheck() {
        return "topic " + topic + ": authorized to describe it";
    }

    private String existsCheck() {
        return "topic " + topic + " exists";
    }

    private String leadersCheck() {
        return "topic " + topic + ": every partition has a leader";
    }

    private void skipTopic(String why) {
        if (topic != null) {
            checks.skip(authorizedCheck(), why);
            checks.skip(existsCheck(), why);
            checks.skip(leadersCheck(), why);
        }
    }

    private void topic(KafkaMetadata metadata) {
        if (topic == null) {
            return;
        }
        TopicProbe.Result r = TopicProbe.probe(metadata, topic, timeoutMs);
        switch (r.outcome()) {
            case NOT_AUTHORIZED -> {
                checks.fail(authorizedCheck(), "the brokers answered TOPIC_AUTHORIZATION_FAILED", "grant Describe "
                        + "(and Write, to produce) on topic " + topic + " to this client's principal");
                checks.skip(existsCheck(), "the brokers do not tell a client that may not describe a topic "
                        + "whether it exists");
                checks.skip(leadersCheck(), "not authorized");
            }
            case NOT_FOUND, INVALID -> {
                checks.ok(authorizedCheck(), "the brokers answered for it");
                checks.fail(existsCheck(), r.message(), "create it (kafka-topics.sh --create --topic " + topic
                        + " ...) or check its name; a producer does not create it while auto.create.topics.enable "
                        + "is off");
                checks.skip(leadersCheck(), "no such topic");
            }
            case NO_ANSWER -> {
                checks.skip(authorizedCheck(), "no answer about the topic");
                Diagnosis d = r.diagnosis();
                checks.fail(existsCheck(), "no answer within " + timeoutMs + " ms: " + (d == null ? r.message()
                        : d.cause() + ": " + d.seen()), d != null ? d.fix() : "check the brokers and the network");
                checks.skip(leadersCheck(), "no answer about the topic");
            }
            case FOUND -> {
                TopicMetadata t = r.cluster().topic(topic);
                checks.ok(authorizedCheck(), "the brokers described it");
                checks.ok(existsCheck(), t.partitionCount() + " partition(s)");
                leaders(t);
            }
            default -> throw new IllegalStateException("unexpected outcome " + r.outcome());
        }
    }

    private void leaders(TopicMetadata t) {
        List<String> leaderless = new ArrayList<>();
        for (PartitionMetadata p : t.partitions()) {
            if (p != null && !p.hasLeader()) {
                leaderless.add(p.partition() + " (replicas " + java.util.Arrays.toString(p.replicas()) + ")");
            }
        }
        if (leaderless.isEmpty()) {
            checks.ok(leadersCheck(), t.partitionCount() + " of " + t.partitionCount() + " led");
        } else {
            checks.fail(leadersCheck(), leaderless.size() + " partition(s) without a leader: "
                    + String.join(", ", leaderless), "bring their replicas' brokers back (kmeta lookup " + topic
                    + " shows the replicas), or look at the controller's log");
        }
    }

    private void clusterId(Cluster last) {
        String id = last.clusterId();
        if (first.clusterId() != null && id != null && !first.clusterId().equals(id)) {
            checks.fail(CLUSTER_ID, "changed from " + first.clusterId() + " to " + id + " during the checks",
                    "the bootstrap addresses lead to more than one cluster: check DNS and load balancers in front "
                            + "of them");
        } else if (expectedClusterId != null && !expectedClusterId.equals(id)) {
            checks.fail(CLUSTER_ID, id + ", expected " + expectedClusterId, "the bootstrap leads to another "
                    + "cluster than expected: check --bootstrap-server, DNS and load balancers");
        } else {
            checks.ok(CLUSTER_ID, id == null ? "none (the brokers sent none)" : id);
        }
    }
}
