package dev.kmeta.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
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
 * <p>Immutable and thread-safe once made. {@link #close()} deletes the directory.
 */
public final class TestCertificates implements AutoCloseable {
    /** The store type of every file. */
    public static final String STORE_TYPE = "PKCS12";
    /** The names the broker certificate is valid for. */
    public static final List<String> BROKER_NAMES = List.of("localhost", "127.0.0.1");

    private static final Logger LOG = LoggerFactory.getLogger(TestCertificates.class);
    private static final long KEYTOOL_TIMEOUT_S = 60;
    private static final String CA = "ca";
    private static final String OTHER_CA = "other-ca";
    private static final String BROKER = "broker";

    private final Path dir;
    private final String password;
    private final Path brokerKeystore;
    private final Path truststore;
    private final Path untrustedTruststore;
    private final X509Certificate caCertificate;

    private TestCertificates(Path dir, String password, X509Certificate caCertificate) {
        this.dir = dir;
        this.password = password;
        this.brokerKeystore = dir.resolve("broker-keystore.p12");
        this.truststore = dir.resolve("truststore.p12");
        this.untrustedTruststore = dir.resolve("untrusted-truststore.p12");
        this.caCertificate = caCertificate;
    }

    /**
     * Makes the material in a new directory {@code <root>/certs-<random>/}.
     *
     * @throws IllegalStateException if keytool fails (its output is in the message)
     */
    public static TestCertificates create(Path root) {
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
            CompletableFuture<Void> ca = keytool.async(CA,
                    "-genkeypair", "-alias", CA, "-dname", "CN=kmeta test CA", "-ext", "bc:c",
                    "-ext", "ku:c=keyCertSign,cRLSign");
            CompletableFuture<Void> otherCa = keytool.async(OTHER_CA,
                    "-genkeypair", "-alias", OTHER_CA, "-dname", "CN=kmeta untrusted CA", "-ext", "bc:c",
                    "-ext", "ku:c=keyCertSign,cRLSign");
            CompletableFuture<Void> brokerKey = keytool.async(BROKER,
                    "-genkeypair", "-alias", BROKER, "-dname", "CN=localhost")
                    .thenRun(() -> keytool.run(BROKER, "-certreq", "-alias", BROKER, "-file", "broker.csr"));
            CompletableFuture.allOf(ca, brokerKey).join();
            keytool.run(CA, "-gencert", "-alias", CA, "-infile", "broker.csr", "-outfile", "broker.pem",
                    "-ext", "san=dns:localhost,ip:127.0.0.1", "-ext", "ku:c=digitalSignature",
                    "-ext", "eku=serverAuth,clientAuth");
            otherCa.join();
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
            TestCertificates certs = new TestCertificates(dir, password, caCert);
            KeyStore brokerSelfSigned = load(dir.resolve(BROKER + ".p12"), pw);
            Key key = brokerSelfSigned.getKey(BROKER, pw);
            KeyStore broker = empty();
            broker.setKeyEntry(BROKER, key, pw, new Certificate[] {brokerCert, caCert});
            store(broker, certs.brokerKeystore, pw);
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

    /** Runs the JDK's keytool in a directory; each key store {@code <name>.p12} is protected by the password. */
    private static final class Keytool {
        private final Path dir;
        private final String password;
        private final Path executable = Path.of(System.getProperty("java.home"), "bin", "keytool");

        Keytool(Path dir, String password) {
            this.dir = dir;
            this.password = password;
        }

        CompletableFuture<Void> async(String store, String... args) {
            return CompletableFuture.runAsync(() -> run(store, args));
        }

        /** Runs one keytool command on key store {@code <store>.p12}. */
        void run(String store, String... args) {
            List<String> command = new ArrayList<>();
            command.add(executable.toString());
            // A short-lived JVM: skip the optimizing compiler, small heap.
            command.add("-J-XX:TieredStopAtLevel=1");
            command.add("-J-XX:+UseSerialGC");
            command.add("-J-Xmx64m");
            command.addAll(List.of(args));
            if (args[0].equals("-genkeypair")) {
                command.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1", "-validity", "30",
                        "-startdate", "-1d"));
            }
            if (args[0].equals("-gencert")) {
                command.addAll(List.of("-rfc", "-validity", "30", "-startdate", "-1d"));
            }
            command.addAll(List.of("-keystore", store + ".p12", "-storetype", STORE_TYPE, "-noprompt"));
            // The password goes through the environment, never on a command line other processes could see.
            command.addAll(List.of("-storepass:env", "KMETA_KS_PASSWORD"));
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
            pb.environment().put("KMETA_KS_PASSWORD", password);
            try {
                Process process = pb.start();
                byte[] output = process.getInputStream().readAllBytes();
                if (!process.waitFor(KEYTOOL_TIMEOUT_S, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new IllegalStateException("keytool " + args[0] + " did not finish within "
                            + KEYTOOL_TIMEOUT_S + " s");
                }
                if (process.exitValue() != 0) {
                    throw new IllegalStateException("keytool " + String.join(" ", args) + " failed ("
                            + process.exitValue() + "): " + new String(output, StandardCharsets.UTF_8).strip());
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run " + executable, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while running keytool", e);
            }
        }
    }
}
