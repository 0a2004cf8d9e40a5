package dev.kmeta.testkit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How a cluster's CLIENT listener is secured, and what a client must say to it; the INTERNAL listener (replication,
 * the testkit's own admin) stays PLAINTEXT. Give it to {@link KafkaCluster.Builder#clientSecurity(ClientSecurity)}.
 *
 * <ul>
 *   <li>{@link #plaintext()}: the default.</li>
 *   <li>{@link #ssl(TestCertificates)}: TLS with the broker certificate of {@code certs}; no client certificate.</li>
 *   <li>{@link #saslSsl(TestCertificates)} / {@link #saslPlaintext()}: SASL with SCRAM-SHA-512 and SCRAM-SHA-256
 *       (users made at runtime: {@link KafkaCluster#createScramUser}), plus PLAIN if {@link #withPlainUser PLAIN
 *       users} are given (PLAIN users live in the broker's JAAS config, so they are fixed before the start).</li>
 *   <li>{@link #requireClientCertificates()}: mutual TLS ({@code ssl.client.auth=required}, client certificates
 *       verified against the CA of {@link TestCertificates#createWithClientCertificates}).</li>
 *   <li>{@link #withExpiredBrokerCertificate()}: the listener serves the broker certificate that expired.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe; {@link #withPlainUser} and the other {@code with...} methods return a new instance.
 */
public final class ClientSecurity {
    /** SCRAM with SHA-512. */
    public static final String SCRAM_SHA_512 = "SCRAM-SHA-512";
    /** SCRAM with SHA-256. */
    public static final String SCRAM_SHA_256 = "SCRAM-SHA-256";
    /** PLAIN (user and password sent as they are: use it over TLS only). */
    public static final String PLAIN = "PLAIN";

    private static final String SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule";
    private static final String PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";
    private static final String LISTENER_PREFIX =
            "listener.name." + KafkaCluster.CLIENT_LISTENER.toLowerCase(Locale.ROOT) + ".";

    private final String protocol;
    private final TestCertificates certificates;
    private final Map<String, String> plainUsers;
    private final boolean clientAuth;
    private final boolean expiredBrokerCertificate;

    private ClientSecurity(String protocol, TestCertificates certificates, Map<String, String> plainUsers) {
        this(protocol, certificates, plainUsers, false, false);
    }

    private ClientSecurity(String protocol, TestCertificates certificates, Map<String, String> plainUsers,
                           boolean clientAuth, boolean expiredBrokerCertificate) {
        this.protocol = protocol;
        this.certificates = certificates;
        this.plainUsers = Collections.unmodifiableMap(new LinkedHashMap<>(plainUsers));
        this.clientAuth = clientAuth;
        this.expiredBrokerCertificate = expiredBrokerCertificate;
    }

    /** No security: the default. */
    public static ClientSecurity plaintext() {
        return new ClientSecurity("PLAINTEXT", null, Map.of());
    }

    /** TLS with the broker certificate of {@code certs} (valid for localhost and 127.0.0.1). */
    public static ClientSecurity ssl(TestCertificates certs) {
        return new ClientSecurity("SSL", Objects.requireNonNull(certs, "certs"), Map.of());
    }

    /** SASL (SCRAM-SHA-512, SCRAM-SHA-256) over TLS with the broker certificate of {@code certs}. */
    public static ClientSecurity saslSsl(TestCertificates certs) {
        return new ClientSecurity("SASL_SSL", Objects.requireNonNull(certs, "certs"), Map.of());
    }

    /** SASL (SCRAM-SHA-512, SCRAM-SHA-256) without TLS. */
    public static ClientSecurity saslPlaintext() {
        return new ClientSecurity("SASL_PLAINTEXT", null, Map.of());
    }

    /** Also enables PLAIN, with this user among its users. Needs a SASL protocol. */
    public ClientSecurity withPlainUser(String user, String password) {
        if (!isSasl()) {
            throw new IllegalStateException("PLAIN users need SASL_SSL or SASL_PLAINTEXT, not " + protocol);
        }
        Map<String, String> users = new LinkedHashMap<>(plainUsers);
        users.put(jaasSafe("user", user), jaasSafe("password", password));
        return new ClientSecurity(protocol, certificates, users, clientAuth, expiredBrokerCertificate);
    }

    /**
     * Mutual TLS: the listener requires a client certificate signed by the CA ({@code ssl.client.auth=required}),
     * and {@link #clientProperties} include the client key store. Needs TLS and certificates made by
     * {@link TestCertificates#createWithClientCertificates}.
     */
    public ClientSecurity requireClientCertificates() {
        requireClientMaterial("client certificates");
        return new ClientSecurity(protocol, certificates, plainUsers, true, expiredBrokerCertificate);
    }

    /**
     * The listener serves {@link TestCertificates#expiredBrokerKeystore()}: every client that checks certificates
     * fails the handshake. Needs TLS and certificates made by {@link TestCertificates#createWithClientCertificates}.
     */
    public ClientSecurity withExpiredBrokerCertificate() {
        requireClientMaterial("an expired broker certificate");
        return new ClientSecurity(protocol, certificates, plainUsers, clientAuth, true);
    }

    private void requireClientMaterial(String what) {
        if (certificates == null || !certificates.hasClientCertificates()) {
            throw new IllegalStateException(what + " need TLS with TestCertificates.createWithClientCertificates, not "
                    + protocol + (certificates == null ? "" : " with TestCertificates.create"));
        }
    }

    /** True if the listener requires client certificates ({@link #requireClientCertificates()}). */
    public boolean requiresClientCertificates() {
        return clientAuth;
    }

    /** {@code security.protocol} of the CLIENT listener. */
    public String protocol() {
        return protocol;
    }

    /** True for SASL_SSL and SASL_PLAINTEXT. */
    public boolean isSasl() {
        return protocol.startsWith("SASL_");
    }

    /** True for SSL and SASL_SSL. */
    public boolean isTls() {
        return certificates != null;
    }

    /** The TLS material, or null without TLS. */
    public TestCertificates certificates() {
        return certificates;
    }

    /** The SASL mechanisms the listener accepts (empty without SASL). */
    public List<String> mechanisms() {
        List<String> m = new ArrayList<>();
        if (isSasl()) {
            m.add(SCRAM_SHA_512);
            m.add(SCRAM_SHA_256);
            if (!plainUsers.isEmpty()) {
                m.add(PLAIN);
            }
        }
        return Collections.unmodifiableList(m);
    }

    /**
     * The client properties (without {@code bootstrap.servers}) for a client without SASL: {@code security.protocol}
     * and, with TLS, a truststore that trusts the broker.
     *
     * @throws IllegalStateException with SASL (use {@link #clientProperties(String, String, String)})
     */
    public Map<String, Object> clientProperties() {
        if (isSasl()) {
            throw new IllegalStateException(protocol + " needs a user: clientProperties(mechanism, user, password)");
        }
        return baseClientProperties();
    }

    /**
     * The client properties (without {@code bootstrap.servers}) for a SASL user: {@code security.protocol},
     * {@code sasl.mechanism}, {@code sasl.jaas.config} and, with TLS, a truststore that trusts the broker.
     *
     * @param mechanism one of {@link #mechanisms()}
     */
    public Map<String, Object> clientProperties(String mechanism, String user, String password) {
        if (!isSasl()) {
            throw new IllegalStateException(protocol + " has no SASL: use clientProperties()");
        }
        if (!mechanisms().contains(mechanism)) {
            throw new IllegalArgumentException("mechanism " + mechanism + " is not enabled; enabled: " + mechanisms());
        }
        Map<String, Object> p = baseClientProperties();
        p.put("sasl.mechanism", mechanism);
        String module = mechanism.equals(PLAIN) ? PLAIN_MODULE : SCRAM_MODULE;
        p.put("sasl.jaas.config", module + " required username=\"" + jaasSafe("user", user) + "\" password=\""
                + jaasSafe("password", password) + "\";");
        return p;
    }

    private Map<String, Object> baseClientProperties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("security.protocol", protocol);
        if (certificates != null) {
            p.putAll(certificates.trustingClientProperties());
        }
        if (clientAuth) {
            p.putAll(certificates.keystoreClientProperties(certificates.clientKeystore()));
        }
        return p;
    }

    /** The broker configs of the CLIENT listener (prefixed {@code listener.name.client.}). */
    Map<String, String> brokerConfigs() {
        Map<String, String> c = new LinkedHashMap<>();
        if (certificates != null) {
            c.putAll(expiredBrokerCertificate ? certificates.expiredBrokerKeystoreConfigs(LISTENER_PREFIX)
                    : certificates.brokerKeystoreConfigs(LISTENER_PREFIX));
        }
        if (clientAuth) {
            c.putAll(certificates.brokerTruststoreConfigs(LISTENER_PREFIX));
            c.put(LISTENER_PREFIX + "ssl.client.auth", "required");
        }
        if (isSasl()) {
            List<String> mechanisms = mechanisms();
            c.put(LISTENER_PREFIX + "sasl.enabled.mechanisms", String.join(",", mechanisms));
            // The broker side of SCRAM needs no user here: credentials live in the cluster's metadata, and the
            // inter-broker listener (INTERNAL) is PLAINTEXT.
            c.put(LISTENER_PREFIX + "scram-sha-512.sasl.jaas.config", SCRAM_MODULE + " required;");
            c.put(LISTENER_PREFIX + "scram-sha-256.sasl.jaas.config", SCRAM_MODULE + " required;");
            if (!plainUsers.isEmpty()) {
                StringBuilder jaas = new StringBuilder(PLAIN_MODULE).append(" required");
                plainUsers.forEach((u, pw) -> jaas.append(" user_").append(u).append("=\"").append(pw).append('"'));
                c.put(LISTENER_PREFIX + "plain.sasl.jaas.config", jaas.append(';').toString());
            }
        }
        return c;
    }

    /** Protocol and mechanisms; never a password. */
    @Override
    public String toString() {
        return "ClientSecurity(" + protocol + (isSasl() ? " " + mechanisms() : "")
                + (plainUsers.isEmpty() ? "" : ", PLAIN users " + plainUsers.keySet())
                + (clientAuth ? ", client certificates required" : "")
                + (expiredBrokerCertificate ? ", expired broker certificate" : "") + ")";
    }

    /** Rejects what would break a JAAS config line (quotes, backslashes, semicolons, blanks in names). */
    private static String jaasSafe(String what, String value) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty() || value.matches(".*[\"\\\\;\\s=].*")) {
            throw new IllegalArgumentException(what + " must be non-empty, without quotes, backslashes, semicolons,"
                    + " '=' or blanks");
        }
        return value;
    }
}
