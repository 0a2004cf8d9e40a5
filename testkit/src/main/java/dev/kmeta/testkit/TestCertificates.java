package dev.kmeta.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS material made at runtime for tests, never committed: a self-signed CA, a broker certificate it signed for
 * {@code localhost} / {@code 127.0.0.1} (subject alternative names), a truststore with that CA, and a truststore
 * with an unrelated CA (the "untrusted certificate" case). Every file is PKCS12 under one directory, protected by
 * one random {@link #password()}.
 *
 * <p>Made with the JDK's own {@code keytool} (key pairs, signing request, signing), run as child processes in
 * parallel where they do not depend on each other, and the JDK's {@link KeyStore} for assembling stores: no
 * dependency beyond the JDK. Keys are EC P-256. Takes about one to two seconds.
 *
 * <pre>{@code
 * TestCertificates certs = TestCertificates.create(Path.of("target"));
 * KafkaCluster.builder().clientSecurity(ClientSecurity.saslSsl(certs)).build().start();
 * }</pre>
 *
 * <p>{@link #createWithClientCertificates} also makes what mutual TLS and the expiry cases need: a client key with a
 * certificate signed by the CA, the same key with a certificate signed by the unrelated CA, the same key with an
 * expired certificate signed by the CA, and the broker key with an expired certificate ({@link #EXPIRED_NOT_AFTER_DAYS}
 * days ago). These cost a few more keytool runs, so {@link #create} does not make them.
 *
 * <p>Immutable and thread-safe once made. {@link #close()} deletes the directory.
 */
public final class TestCertificates implements AutoCloseable {
    /** The store type of every file. */
    public static final String STORE_TYPE = "PKCS12";
    /** The names the broker certificate is valid for. */
    public static final List<String> BROKER_NAMES = List.of("localhost", "127.0.0.1");

    private static final Logger LOG = LoggerFactory.getLogger(TestCertificates.class);
    private static final String CA = "ca";
    private static final String OTHER_CA = "other-ca";
    private static final String BROKER = "broker";
    private static final String CLIENT = "client";
    /** The expired certificates were valid from 60 days ago for 30 days: they expired this many days ago. */
    public static final int EXPIRED_NOT_AFTER_DAYS = 30;
    private static final String[] EXPIRED_VALIDITY = {"-startdate", "-60d", "-validity", "30"};

    private final Path dir;
    private final String password;
    private final Path brokerKeystore;
    private final Path truststore;
    private final Path untrustedTruststore;
    private final X509Certificate caCertificate;
    private final boolean withClientCertificates;

    private TestCertificates(Path dir, String password, X509Certificate caCertificate, boolean withClientCertificates) {
        this.dir = dir;
        this.password = password;
        this.brokerKeystore = dir.resolve("broker-keystore.p12");
        this.truststore = dir.resolve("truststore.p12");
        this.untrustedTruststore = dir.resolve("untrusted-truststore.p12");
        this.caCertificate = caCertificate;
        this.withClientCertificates = withClientCertificates;
    }

    /**
     * Makes the material in a new directory {@code <root>/certs-<random>/}.
     *
     * @throws IllegalStateException if keytool fails (its output is in the message)
     */
    public static TestCertificates create(Path root) {
        return create(root, false);
    }

    /**
     * As {@link #create(Path)}, plus client certificates (trusted, from the unrelated CA, expired) and an expired
     * broker certificate, for mutual TLS and the expiry cases.
     *
     * @throws IllegalStateException if keytool fails (its output is in the message)
     */
    public static TestCertificates createWithClientCertificates(Path root) {
        return create(root, true);
    }

    private static TestCertificates create(Path root, boolean clients) {
        long begin = System.nanoTime();
        Path dir;
        String password;
        try {
            Files.createDirectories(root);
            byte[] random = new byte[12];
            new SecureRandom().nextBytes(random);
            password = "pw-" + HexFormat.of().formatHex(random);
            dir = Files.createTempDirectory(root.toAbsolutePath(), "certs-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a certificate directory under " + root, e);
        }
        Keytool keytool = new Keytool(dir, password);
        try {
            makeWithKeytool(keytool, clients);
        } catch (CompletionException e) {
            deleteQuietly(dir);
            throw e.getCause() instanceof RuntimeException r ? r : e;
        } catch (RuntimeException e) {
            deleteQuietly(dir);
            throw e;
        }
        try {
            char[] pw = password.toCharArray();
            KeyStore caStore = load(dir.resolve(CA + ".p12"), pw);
            X509Certificate caCert = (X509Certificate) caStore.getCertificate(CA);
            X509Certificate otherCaCert = (X509Certificate) load(dir.resolve(OTHER_CA + ".p12"), pw)
                    .getCertificate(OTHER_CA);
            X509Certificate brokerCert;
            try (InputStream in = Files.newInputStream(dir.resolve("broker.pem"))) {
                brokerCert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            }
            TestCertificates certs = new TestCertificates(dir, password, caCert, clients);
            KeyStore brokerSelfSigned = load(dir.resolve(BROKER + ".p12"), pw);
            Key key = brokerSelfSigned.getKey(BROKER, pw);
            KeyStore broker = empty();
            broker.setKeyEntry(BROKER, key, pw, new Certificate[] {brokerCert, caCert});
            store(broker, certs.brokerKeystore, pw);
            if (clients) {
                certs.storeClientAndExpired(key, caCert, otherCaCert);
            }
            KeyStore trust = empty();
            trust.setCertificateEntry(CA, caCert);
            store(trust, certs.truststore, pw);
            KeyStore untrusted = empty();
            untrusted.setCertificateEntry(OTHER_CA, otherCaCert);
            store(untrusted, certs.untrustedTruststore, pw);
            LOG.info("test certificates made in {} ms in {}",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin), dir);
            return certs;
        } catch (IOException | GeneralSecurityException e) {
            deleteQuietly(dir);
            throw new IllegalStateException("cannot assemble the test key stores in " + dir, e);
        }
    }

    /** The directory holding every file. */
    public Path directory() {
        return dir;
    }

    /** The password of every store and key (random per instance: tests may check it never shows in logs). */
    public String password() {
        return password;
    }

    /** The broker's key store: its key, its certificate for {@link #BROKER_NAMES}, and the CA certificate. */
    public Path brokerKeystore() {
        return brokerKeystore;
    }

    /** A trust store holding the CA that signed the broker certificate. */
    public Path truststore() {
        return truststore;
    }

    /** A trust store holding an unrelated CA: a client using it rejects the broker's certificate. */
    public Path untrustedTruststore() {
        return untrustedTruststore;
    }

    /** The CA certificate. */
    public X509Certificate caCertificate() {
        return caCertificate;
    }

    /**
     * The client's key store: the client key with a certificate signed by the CA (CN=kmeta-client), and the CA
     * certificate. Needs {@link #createWithClientCertificates}.
     */
    public Path clientKeystore() {
        return requireClientCertificates("client-keystore.p12");
    }

    /** The client key with a certificate signed by the unrelated CA: a broker trusting the CA rejects it. */
    public Path untrustedClientKeystore() {
        return requireClientCertificates("untrusted-client-keystore.p12");
    }

    /** The client key with a certificate signed by the CA that expired {@link #EXPIRED_NOT_AFTER_DAYS} days ago. */
    public Path expiredClientKeystore() {
        return requireClientCertificates("expired-client-keystore.p12");
    }

    /**
     * The broker key with a certificate signed by the CA for {@link #BROKER_NAMES} that expired
     * {@link #EXPIRED_NOT_AFTER_DAYS} days ago: a client trusting the CA rejects it.
     */
    public Path expiredBrokerKeystore() {
        return requireClientCertificates("expired-broker-keystore.p12");
    }

    /** {@code ssl.keystore.location/password/type} and {@code ssl.key.password} for a client presenting this store. */
    public Map<String, Object> keystoreClientProperties(Path keystore) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("ssl.keystore.location", keystore.toString());
        p.put("ssl.keystore.password", password);
        p.put("ssl.key.password", password);
        p.put("ssl.keystore.type", STORE_TYPE);
        return p;
    }

    /** True if made by {@link #createWithClientCertificates}. */
    public boolean hasClientCertificates() {
        return withClientCertificates;
    }

    private Path requireClientCertificates(String file) {
        if (!withClientCertificates) {
            throw new IllegalStateException("no client or expired certificates: make them with "
                    + "TestCertificates.createWithClientCertificates");
        }
        return dir.resolve(file);
    }

    /**
     * The keys and certificates, with keytool: both CAs, the broker key and its certificate by the CA, and (if
     * {@code clients}) the client key and the other certificates. Runs that do not depend on each other run at once.
     */
    private static void makeWithKeytool(Keytool keytool, boolean clients) {
        CompletableFuture<Void> ca = keytool.async(CA,
                "-genkeypair", "-alias", CA, "-dname", "CN=kmeta test CA", "-ext", "bc:c",
                "-ext", "ku:c=keyCertSign,cRLSign");
        CompletableFuture<Void> otherCa = keytool.async(OTHER_CA,
                "-genkeypair", "-alias", OTHER_CA, "-dname", "CN=kmeta untrusted CA", "-ext", "bc:c",
                "-ext", "ku:c=keyCertSign,cRLSign");
        CompletableFuture<Void> brokerKey = keytool.async(BROKER,
                "-genkeypair", "-alias", BROKER, "-dname", "CN=localhost")
                .thenRun(() -> keytool.run(BROKER, "-certreq", "-alias", BROKER, "-file", "broker.csr"));
        CompletableFuture<Void> clientKey = !clients ? CompletableFuture.completedFuture(null)
                : keytool.async(CLIENT, "-genkeypair", "-alias", CLIENT, "-dname", "CN=kmeta-client")
                .thenRun(() -> keytool.run(CLIENT, "-certreq", "-alias", CLIENT, "-file", "client.csr"));
        CompletableFuture.allOf(ca, brokerKey).join();
        keytool.run(CA, "-gencert", "-alias", CA, "-infile", "broker.csr", "-outfile", "broker.pem",
                "-ext", "san=dns:localhost,ip:127.0.0.1", "-ext", "ku:c=digitalSignature",
                "-ext", "eku=serverAuth,clientAuth");
        otherCa.join();
        if (clients) {
            clientKey.join();
            signClientAndExpired(keytool);
        }
    }

    /** The client certificate by the CA, by the other CA, expired; the broker's expired certificate (keytool). */
    private static void signClientAndExpired(Keytool keytool) {
        CompletableFuture<Void> byOther = keytool.async(OTHER_CA, "-gencert", "-alias", OTHER_CA,
                "-infile", "client.csr", "-outfile", "untrusted-client.pem", "-ext", "eku=clientAuth");
        CompletableFuture<Void> expiredBroker = keytool.async(CA, concat(new String[] {"-gencert", "-alias", CA,
                "-infile", "broker.csr", "-outfile", "expired-broker.pem", "-ext", "san=dns:localhost,ip:127.0.0.1",
                "-ext", "eku=serverAuth,clientAuth"}, EXPIRED_VALIDITY));
        // Two runs on the CA store at once are fine: gencert only reads it.
        keytool.run(CA, "-gencert", "-alias", CA, "-infile", "client.csr", "-outfile", "client.pem",
                "-ext", "eku=clientAuth");
        keytool.run(CA, concat(new String[] {"-gencert", "-alias", CA, "-infile", "client.csr",
                "-outfile", "expired-client.pem", "-ext", "eku=clientAuth"}, EXPIRED_VALIDITY));
        CompletableFuture.allOf(byOther, expiredBroker).join();
    }

    private void storeClientAndExpired(Key brokerKey, X509Certificate caCert, X509Certificate otherCaCert)
            throws IOException, GeneralSecurityException {
        char[] pw = password.toCharArray();
        Key clientKey = load(dir.resolve(CLIENT + ".p12"), pw).getKey(CLIENT, pw);
        storeKey(CLIENT, clientKey, pem("client.pem"), caCert, clientKeystore());
        storeKey(CLIENT, clientKey, pem("untrusted-client.pem"), otherCaCert, untrustedClientKeystore());
        storeKey(CLIENT, clientKey, pem("expired-client.pem"), caCert, expiredClientKeystore());
        storeKey(BROKER, brokerKey, pem("expired-broker.pem"), caCert, expiredBrokerKeystore());
    }

    private void storeKey(String alias, Key key, X509Certificate cert, X509Certificate issuer, Path file)
            throws IOException, GeneralSecurityException {
        char[] pw = password.toCharArray();
        KeyStore ks = empty();
        ks.setKeyEntry(alias, key, pw, new Certificate[] {cert, issuer});
        store(ks, file, pw);
    }

    private X509Certificate pem(String file) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(dir.resolve(file))) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** {@code ssl.truststore.location/password/type} for a client that trusts the broker. */
    public Map<String, Object> trustingClientProperties() {
        return trustProperties(truststore);
    }

    /** {@code ssl.truststore.location/password/type} for a client that does not trust the broker. */
    public Map<String, Object> untrustingClientProperties() {
        return trustProperties(untrustedTruststore);
    }

    private Map<String, Object> trustProperties(Path store) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("ssl.truststore.location", store.toString());
        p.put("ssl.truststore.password", password);
        p.put("ssl.truststore.type", STORE_TYPE);
        return p;
    }

    /**
     * Broker configs for a listener serving the broker certificate, each key prefixed with {@code prefix}
     * (e.g. {@code listener.name.client.}).
     */
    Map<String, String> brokerKeystoreConfigs(String prefix) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put(prefix + "ssl.keystore.location", brokerKeystore.toString());
        c.put(prefix + "ssl.keystore.password", password);
        c.put(prefix + "ssl.key.password", password);
        c.put(prefix + "ssl.keystore.type", STORE_TYPE);
        return c;
    }

    /**
     * Broker configs for a listener that verifies client certificates against the CA (truststore only; the caller
     * sets {@code ssl.client.auth}), each key prefixed with {@code prefix}.
     */
    Map<String, String> brokerTruststoreConfigs(String prefix) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put(prefix + "ssl.truststore.location", truststore.toString());
        c.put(prefix + "ssl.truststore.password", password);
        c.put(prefix + "ssl.truststore.type", STORE_TYPE);
        return c;
    }

    /** As {@link #brokerKeystoreConfigs} with the broker's expired certificate. */
    Map<String, String> expiredBrokerKeystoreConfigs(String prefix) {
        Map<String, String> c = brokerKeystoreConfigs(prefix);
        c.put(prefix + "ssl.keystore.location", expiredBrokerKeystore().toString());
        return c;
    }

    /** Deletes the directory and every file in it. */
    @Override
    public void close() {
        deleteQuietly(dir);
    }

    @Override
    public String toString() {
        return "TestCertificates(" + dir + ", CA " + caCertificate.getSubjectX500Principal().getName() + ")";
    }

    private static KeyStore empty() throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance(STORE_TYPE);
        ks.load(null, null);
        return ks;
    }

    private static KeyStore load(Path file, char[] password) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance(STORE_TYPE);
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password);
        }
        return ks;
    }

    private static void store(KeyStore ks, Path file, char[] password) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(file)) {
            ks.store(out, password);
        }
    }

    private static void deleteQuietly(Path dir) {
        try {
            Storage.deleteRecursively(dir);
        } catch (IOException e) {
            LOG.warn("cannot delete {}", dir, e);
        }
    }
}
