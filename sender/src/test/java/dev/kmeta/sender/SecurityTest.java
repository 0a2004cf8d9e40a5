package dev.kmeta.sender;

import dev.kmeta.testkit.LogCapture;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataFatalException;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.testkit.ClientSecurity;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.TestCertificates;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kmeta over SASL_SSL (SCRAM-SHA-512 and PLAIN, one-way TLS) against a real broker whose CLIENT listener is secured,
 * with certificates made at runtime: metadata is fetched; a wrong password, an untrusted CA and a host name the
 * certificate does not name each fail every waiter at once with {@link MetadataFatalException} (not at the deadline)
 * whose diagnosis names the problem, and the client then reconnects no faster than its reconnect backoff allows;
 * and no secret shows in logs, exception messages or {@code toString()}. TLS-only listeners (one-way, mutual,
 * expired certificates) are in {@link SecurityTlsTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SecurityTest {
    private static final String USER = "kmeta-user";
    private static final String PASSWORD = "scram-" + UUID.randomUUID();
    private static final String WRONG_PASSWORD = "wrong-" + UUID.randomUUID();
    private static final String PLAIN_USER = "kmeta-plain";
    private static final String PLAIN_PASSWORD = "plain-" + UUID.randomUUID();
    private static final String TOPIC = "secure-orders";
    private static final int WAITERS = 6;
    /** Budget of every waiter: failing "at once" means long before it. */
    private static final long BUDGET_MS = 60_000;
    /** The reconnect backoff of the failing clients: 50 ms doubling (jitter 0.2) up to 500 ms. */
    private static final long RECONNECT_BACKOFF_MS = 50;
    private static final long RECONNECT_BACKOFF_MAX_MS = 500;
    /**
     * How long the reconnects after a fatal failure are counted: three times the backoff's cap, as before (3 s for
     * 100 ms doubling to 1 s), so the window still covers the doubling and the capped reconnects after it.
     */
    private static final long STORM_WINDOW_MS = 1_500;

    private static TestCertificates certs;
    private static KafkaCluster kafka;

    @BeforeAll
    static void start() {
        certs = TestCertificates.create(Path.of("target"));
        kafka = KafkaCluster.builder()
                .clientSecurity(ClientSecurity.saslSsl(certs).withPlainUser(PLAIN_USER, PLAIN_PASSWORD))
                .build().start();
        kafka.createScramUser(USER, PASSWORD);
        kafka.createTopic(TOPIC, 3, 1);
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    /**
     * Kafka client properties for {@code bootstrap} with the given security, a fresh client id and the reconnect
     * backoff {@link #maxConnectionsIn} assumes.
     */
    static Map<String, Object> props(String bootstrap, Map<String, Object> security) {
        Map<String, Object> p = new HashMap<>(security);
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", "security-" + System.nanoTime());
        p.put("reconnect.backoff.ms", RECONNECT_BACKOFF_MS);
        p.put("reconnect.backoff.max.ms", RECONNECT_BACKOFF_MAX_MS);
        return p;
    }

    private static Map<String, Object> good() {
        return props(kafka.bootstrapServers(), kafka.clientProperties(USER, PASSWORD));
    }

    @Tag("kafka-clients-compat")
    @Test
    void fetchesMetadataOverSaslSsl() throws Exception {
        try (KafkaMetadata m = KafkaMetadata.create(good())) {
            Deadline deadline = m.newDeadline(Duration.ofSeconds(30));
            Cluster c = m.awaitTopic(TOPIC, deadline);
            assertFalse(deadline.isExpired());
            TopicDescription d = kafka.admin().describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
            assertEquals(3, c.partitionCount(TOPIC));
            for (TopicPartitionInfo p : d.partitions()) {
                assertEquals(p.leader().id(), c.leader(TOPIC, p.partition()).id());
                assertEquals(kafka.brokerAddress(p.leader().id()).getPort(), c.leader(TOPIC, p.partition()).port(),
                        "the leader's SASL_SSL client listener");
            }
            assertEquals(kafka.clusterId(), c.clusterId());
            // The sender settles its state machine just after it wakes the waiters it answered.
            await().atMost(Duration.ofSeconds(5)).until(() -> m.state() == RefreshState.STABLE);
            ConnectionEvidence.Record bootstrap = m.evidence().get("-1");
            assertNotNull(bootstrap);
            assertTrue(bootstrap.answers() >= 1, bootstrap.toString());
            assertEquals(null, bootstrap.lastProblem(), bootstrap.toString());
        }
    }

    @Test
    void fetchesMetadataOverSaslSslWithPlain() throws Exception {
        Map<String, Object> p = props(kafka.bootstrapServers(),
                kafka.clientProperties(ClientSecurity.PLAIN, PLAIN_USER, PLAIN_PASSWORD));
        assertEquals("PLAIN", p.get("sasl.mechanism"));
        try (KafkaMetadata m = KafkaMetadata.create(p)) {
            Cluster c = m.awaitTopic(TOPIC, m.newDeadline(Duration.ofSeconds(30)));
            assertEquals(3, c.partitionCount(TOPIC));
            assertEquals(kafka.leader(TOPIC, 0), c.leader(TOPIC, 0).id());
            assertEquals(kafka.clusterId(), c.clusterId());
        }
    }

    @Tag("kafka-clients-compat")
    @Test
    void wrongPasswordFailsEveryWaiterAtOnceWithoutARetryStorm() throws Exception {
        Failure f = everyWaiterFailsAtOnce(kafka.brokerAddress(0), TOPIC, proxy -> KafkaMetadata.create(
                props(proxy.address(), kafka.clientProperties(USER, WRONG_PASSWORD))),
                ConnectionEvidence.Problem.AUTHENTICATION, "invalid credentials with SASL mechanism SCRAM-SHA-512");
        for (Throwable cause : f.causes) {
            assertInstanceOf(SaslAuthenticationException.class, cause);
        }
    }

    @Test
    void wrongPlainPasswordFailsEveryWaiterAtOnceWithoutARetryStorm() throws Exception {
        Failure f = everyWaiterFailsAtOnce(kafka.brokerAddress(0), TOPIC, proxy -> KafkaMetadata.create(
                props(proxy.address(), kafka.clientProperties(ClientSecurity.PLAIN, PLAIN_USER, WRONG_PASSWORD))),
                ConnectionEvidence.Problem.AUTHENTICATION, "Invalid username or password");
        for (Throwable cause : f.causes) {
            assertInstanceOf(SaslAuthenticationException.class, cause);
        }
    }

    @Test
    void untrustedCertificateFailsEveryWaiterAtOnce() throws Exception {
        Map<String, Object> security = new HashMap<>(kafka.clientProperties(USER, PASSWORD));
        security.putAll(certs.untrustingClientProperties());
        Failure f = everyWaiterFailsAtOnce(kafka.brokerAddress(0), TOPIC,
                proxy -> KafkaMetadata.create(props(proxy.address(), security)),
                ConnectionEvidence.Problem.TLS_HANDSHAKE, "unable to find valid certification path");
        for (Throwable cause : f.causes) {
            assertInstanceOf(SslAuthenticationException.class, cause);
            assertTrue(chain(cause).contains("unable to find valid certification path"), chain(cause));
        }
    }

    @Test
    void hostNameTheCertificateDoesNotNameFailsEveryWaiterAtOnce() throws Exception {
        // kafka.wrong.test resolves to 127.0.0.1, but the certificate names only localhost and 127.0.0.1:
        // kafka-clients' default ssl.endpoint.identification.algorithm=https must reject it.
        HostResolverHook hook = host -> host.equals("kafka.wrong.test")
                ? new InetAddress[] {InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1})}
                : throwUnknown(host);
        Failure f = everyWaiterFailsAtOnce(kafka.brokerAddress(0), TOPIC, proxy -> KafkaMetadata.builder(
                props("kafka.wrong.test:" + proxy.port(), kafka.clientProperties(USER, PASSWORD)))
                .hostResolver(hook).build(), ConnectionEvidence.Problem.TLS_HANDSHAKE,
                "No subject alternative DNS name matching kafka.wrong.test");
        for (Throwable cause : f.causes) {
            assertInstanceOf(SslAuthenticationException.class, cause);
            assertTrue(chain(cause).contains("No subject alternative DNS name matching kafka.wrong.test"),
                    chain(cause));
        }
    }

    /** Every message of a cause chain, one per line. */
    static String chain(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (; t != null; t = t.getCause()) {
            sb.append(t).append('\n');
        }
        return sb.toString();
    }

    private static InetAddress[] throwUnknown(String host) throws UnknownHostException {
        throw new UnknownHostException(host);
    }

    /** What {@link #everyWaiterFailsAtOnce} saw: the wire's error under each waiter's MetadataFatalException. */
    record Failure(List<Throwable> causes, List<MetadataFatalException> errors) {
    }

    /**
     * The most connections a client can open in {@code windowMs} with the reconnect backoff of {@link #props}: one,
     * then one after each backoff (50 ms doubling to 500 ms), each backoff taken at its shortest (-20% jitter) and the
     * doubling started over from 50 ms (the worst case: the count of failures in a row is never reset by a failed
     * handshake), plus one for a connection under way when the window opened.
     */
    static int maxConnectionsIn(long windowMs) {
        int connections = 2;
        double elapsedMs = 0;
        for (long backoffMs = RECONNECT_BACKOFF_MS; ; backoffMs = Math.min(backoffMs * 2, RECONNECT_BACKOFF_MAX_MS)) {
            elapsedMs += 0.8 * backoffMs;
            if (elapsedMs > windowMs) {
                return connections;
            }
            connections++;
        }
    }

    /**
     * {@value #WAITERS} threads wait for a topic with a {@value #BUDGET_MS} ms budget while a proxy in front of
     * {@code broker} refuses connections (so all are parked); then the proxy lets the client through to the broker,
     * which (or whose certificate) rejects it. Every waiter must fail within a few seconds with a
     * MetadataFatalException whose cause is the wire's AuthenticationException and whose diagnosis has the expected
     * cause and names the problem ({@code detail}, in the diagnosis and the exception message), all within a short
     * spread; a later wait fails at once; and over the next {@value #STORM_WINDOW_MS} ms the client opens no more
     * connections than its reconnect backoff allows ({@link #maxConnectionsIn}), counted both by the proxy (TCP
     * connections, each a new handshake) and by kmeta's own evidence.
     */
    static Failure everyWaiterFailsAtOnce(InetSocketAddress broker, String topic,
                                          Function<FaultProxy, KafkaMetadata> open,
                                          ConnectionEvidence.Problem expected, String detail) throws Exception {
        Diagnosis.Cause expectedCause = expected == ConnectionEvidence.Problem.TLS_HANDSHAKE
                ? Diagnosis.Cause.TLS_HANDSHAKE_FAILED : Diagnosis.Cause.AUTHENTICATION_FAILED;
        ExecutorService pool = Executors.newFixedThreadPool(WAITERS);
        // The failed handshakes' ERROR lines (kafka-clients', kmeta's "metadata unavailable") are expected: captured
        try (LogCapture logs = LogCapture.at("warn", "dev.kmeta");
             FaultProxy proxy = FaultProxy.to(broker).refuse();
             KafkaMetadata m = open.apply(proxy)) {
            List<Future<long[]>> waits = new ArrayList<>();
            List<Throwable[]> errors = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                Throwable[] error = new Throwable[1];
                errors.add(error);
                waits.add(pool.submit(() -> {
                    Deadline deadline = m.newDeadline(Duration.ofMillis(BUDGET_MS));
                    try {
                        m.awaitTopic(topic, deadline);
                    } catch (RuntimeException e) {
                        error[0] = e;
                    }
                    return new long[] {System.nanoTime(), deadline.remainingNs()};
                }));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> m.stats().waitersNow() == WAITERS);
            assertTrue(waits.stream().noneMatch(Future::isDone), "nobody fails while the broker is unreachable");

            long released = System.nanoTime();
            proxy.pass();
            List<Throwable> causes = new ArrayList<>();
            List<MetadataFatalException> fatals = new ArrayList<>();
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (int i = 0; i < WAITERS; i++) {
                long[] done = waits.get(i).get(15, TimeUnit.SECONDS);
                first = Math.min(first, done[0]);
                last = Math.max(last, done[0]);
                assertTrue(done[1] > TimeUnit.MILLISECONDS.toNanos(BUDGET_MS - 20_000),
                        "failed long before the deadline");
                Throwable e = errors.get(i)[0];
                assertInstanceOf(AuthenticationException.class, e, "waiter " + i + ": a Kafka type at the boundary");
                assertEquals(e.getCause().getCause().getClass(), e.getClass(), "the wire's own type");
                MetadataFatalException fatal = assertInstanceOf(MetadataFatalException.class, e.getCause(),
                        "waiter " + i);
                assertInstanceOf(AuthenticationException.class, fatal.getCause(), "waiter " + i);
                assertNamesTheProblem(fatal, expectedCause, detail);
                assertTrue(e.getMessage().contains(expectedCause.name()), e.getMessage());
                causes.add(fatal.getCause());
                fatals.add(fatal);
            }
            long failMs = TimeUnit.NANOSECONDS.toMillis(last - released);
            long spreadMs = TimeUnit.NANOSECONDS.toMillis(last - first);
            ItSupport.report("%s: %d waiters failed %d ms after the broker became reachable, spread %d ms: %s",
                    causes.get(0).getClass().getSimpleName(), WAITERS, failMs, spreadMs,
                    fatals.get(0).diagnosis().seen());
            assertTrue(failMs < 10_000, "failed " + failMs + " ms after release");
            assertTrue(spreadMs < 1_000, "all at once: spread " + spreadMs + " ms");

            long before = System.nanoTime();
            MetadataFatalException later = assertInstanceOf(MetadataFatalException.class, assertThrows(
                    AuthenticationException.class, () -> m.awaitTopic(topic, m.newDeadline(Duration.ofMillis(BUDGET_MS)))).getCause());
            assertNamesTheProblem(later, expectedCause, detail);
            assertTrue(System.nanoTime() - before < TimeUnit.SECONDS.toNanos(1), "a later wait fails at once");

            ConnectionEvidence.Record record = m.evidence().get("-1");
            assertEquals(expected, record.lastProblem(), record.toString());
            assertNoRetryStorm(m, proxy);
            assertTrue(logs.text().contains("ERROR dev.kmeta.metadata.internal.MetadataManager - ")
                    && logs.text().contains("metadata unavailable: "), "kmeta logged the fatal error:\n" + logs.text());
            return new Failure(causes, fatals);
        } finally {
            pool.shutdownNow();
        }
    }

    /** The diagnosis has the cause and names the problem; so does the exception message. */
    private static void assertNamesTheProblem(MetadataFatalException e, Diagnosis.Cause cause, String detail) {
        Diagnosis d = e.diagnosis();
        assertNotNull(d, e.getMessage());
        assertEquals(cause, d.cause(), e.getMessage());
        assertTrue(d.seen().contains(detail), "the diagnosis names the problem (" + detail + "): " + d.seen());
        assertTrue(e.getMessage().contains(cause.name()), e.getMessage());
        assertTrue(e.getMessage().contains(detail), "the message names the problem (" + detail + "): "
                + e.getMessage());
    }

    /**
     * Over {@value #STORM_WINDOW_MS} ms the client keeps trying (a refresh is still wanted) but opens at most
     * {@link #maxConnectionsIn} connections: the proxy's count of TCP connections and kmeta's count of attempts.
     */
    private static void assertNoRetryStorm(KafkaMetadata m, FaultProxy proxy) {
        int bound = maxConnectionsIn(STORM_WINDOW_MS);
        long acceptedAtFailure = proxy.acceptedConnections();
        int attemptsAtFailure = m.evidence().get("-1").attempts();
        await().during(Duration.ofMillis(STORM_WINDOW_MS)).atMost(Duration.ofMillis(STORM_WINDOW_MS + 2_000)).until(
                () -> proxy.acceptedConnections() - acceptedAtFailure <= bound
                        && m.evidence().get("-1").attempts() - attemptsAtFailure <= bound);
        long accepted = proxy.acceptedConnections() - acceptedAtFailure;
        int attempts = m.evidence().get("-1").attempts() - attemptsAtFailure;
        ItSupport.report("  then in %d ms: %d connections accepted by the proxy, %d attempts recorded (bound %d)",
                STORM_WINDOW_MS, accepted, attempts, bound);
        assertTrue(accepted <= bound, accepted + " connections in " + STORM_WINDOW_MS + " ms, bound " + bound);
        assertTrue(attempts <= bound, attempts + " attempts in " + STORM_WINDOW_MS + " ms, bound " + bound);
    }

    /**
     * Everything logged (kmeta and all of Kafka - clients and the in-process broker - at TRACE) while
     * clients log in with SCRAM and PLAIN, then fail with a wrong password and an untrusted certificate: no password,
     * no store password and no JAAS config line shows, in the logs, the exception chains, the diagnoses,
     * {@code MetadataConfig.toString()} (which prints the keys with {@code [hidden]}) or the evidence.
     */
    @Test
    void noSecretInLogsExceptionsOrToString() throws Exception {
        List<String> texts = new ArrayList<>();
        Map<String, Object> plain = kafka.clientProperties(ClientSecurity.PLAIN, PLAIN_USER, PLAIN_PASSWORD);
        List<String> secrets = List.of(PASSWORD, WRONG_PASSWORD, PLAIN_PASSWORD, certs.password(),
                (String) good().get("sasl.jaas.config"), (String) plain.get("sasl.jaas.config"));
        String captured;
        try (LogCapture logs = LogCapture.at("trace", "dev.kmeta", "org.apache.kafka", "kafka")) {
            for (Map<String, Object> p : List.of(good(), props(kafka.bootstrapServers(), plain))) {
                try (KafkaMetadata m = KafkaMetadata.create(p)) {
                    assertEquals(3, m.awaitTopic(TOPIC, m.newDeadline(Duration.ofSeconds(30))).partitionCount(TOPIC));
                    String config = m.config().toString();
                    assertTrue(config.contains("sasl.jaas.config=[hidden]"), config);
                    assertTrue(config.contains("ssl.truststore.password=[hidden]"), config);
                    assertTrue(config.contains("ssl.truststore.location=" + certs.truststore()), "other keys shown");
                    texts.add(config);
                    texts.add(m.toString());
                    texts.add(String.valueOf(m.evidence().summary()));
                    m.evidence().records().forEach(r -> texts.add(r.toString()));
                }
            }
            Map<String, Object> untrusted = new HashMap<>(kafka.clientProperties(USER, PASSWORD));
            untrusted.putAll(certs.untrustingClientProperties());
            for (Map<String, Object> security : List.of(kafka.clientProperties(USER, WRONG_PASSWORD), untrusted,
                    kafka.clientProperties(ClientSecurity.PLAIN, PLAIN_USER, WRONG_PASSWORD))) {
                try (KafkaMetadata m = KafkaMetadata.create(props(kafka.bootstrapServers(), security))) {
                    AuthenticationException kafka = assertThrows(AuthenticationException.class,
                            () -> m.awaitTopic(TOPIC, m.newDeadline(Duration.ofSeconds(30))));
                    MetadataFatalException e = assertInstanceOf(MetadataFatalException.class, kafka.getCause());
                    for (Throwable t = kafka; t != null; t = t.getCause()) {
                        texts.add(t.toString());
                    }
                    texts.add(String.valueOf(e.diagnosis()));
                    texts.add(String.join("\n", e.diagnosis().evidence()));
                    texts.add(m.config().toString());
                    texts.add(m.toString());
                    texts.add(String.valueOf(m.evidence().summary()));
                }
            }
            captured = logs.text();
        }
        // Kept for whoever wants to read what was checked.
        Files.writeString(Path.of("target", "SecurityTest-captured-logs.txt"), captured);
        assertTrue(captured.contains("kmeta metadata starting"), "the capture works: " + captured.length() + " chars");
        assertTrue(captured.contains(" TRACE "), "the capture is at TRACE");
        assertTrue(captured.contains("sasl.jaas.config=[hidden]"), "the config line is there, credentials hidden");
        assertTrue(captured.contains("invalid credentials"), "the failures are in the capture");
        ItSupport.report("checked %d lines of logs (%d chars) and %d strings for %d secrets",
                captured.lines().count(), captured.length(), texts.size(), secrets.size());
        for (String secret : secrets) {
            assertNoSecret(secret, "logs", captured);
            for (String text : texts) {
                assertNoSecret(secret, "a string", text);
            }
        }
    }

    static void assertNoSecret(String secret, String where, String text) {
        int at = text.indexOf(secret);
        if (at >= 0) {
            int from = text.lastIndexOf('\n', at) + 1;
            int to = text.indexOf('\n', at);
            String line = text.substring(from, to < 0 ? text.length() : to);
            throw new AssertionError("a secret shows in " + where + ": " + line.replace(secret, "<SECRET>"));
        }
    }
}
