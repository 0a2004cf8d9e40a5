package dev.kmeta.metadata;

import dev.kmeta.metadata.MetadataConfig.DnsLookup;
import dev.kmeta.metadata.MetadataConfig.RecoveryStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

import static dev.kmeta.metadata.MetadataConfig.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MetadataConfigTest {

    private static MetadataConfig config(Object... keyValues) {
        Map<String, Object> props = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return MetadataConfig.from(props);
    }

    private static ConfigException rejected(Object... keyValues) {
        return assertThrows(ConfigException.class, () -> config(keyValues));
    }

    // ---- defaults ----

    @Test
    void defaultsAreKafkaClientsProducerDefaults() {
        MetadataConfig c = config();
        assertEquals(List.of(), c.bootstrapServers());
        assertEquals(300_000L, c.metadataMaxAgeMs());
        assertEquals(300_000L, c.metadataMaxIdleMs());
        assertEquals(60_000L, c.maxBlockMs());
        assertEquals(100L, c.retryBackoffMs());
        assertEquals(1_000L, c.retryBackoffMaxMs());
        assertEquals(50L, c.reconnectBackoffMs());
        assertEquals(1_000L, c.reconnectBackoffMaxMs());
        assertEquals(30_000, c.requestTimeoutMs());
        assertEquals(10_000L, c.socketConnectionSetupTimeoutMs());
        assertEquals(30_000L, c.socketConnectionSetupTimeoutMaxMs());
        assertEquals(RecoveryStrategy.REBOOTSTRAP, c.metadataRecoveryStrategy());
        assertEquals(300_000L, c.metadataRecoveryRebootstrapTriggerMs());
        assertEquals(DnsLookup.USE_ALL_DNS_IPS, c.clientDnsLookup());
        assertTrue(c.allowAutoCreateTopics());
        assertEquals("PLAINTEXT", c.securityProtocol());
    }

    @Test
    void defaultsOfKmetaKeys() {
        MetadataConfig c = config();
        assertEquals(100_000, c.maxTopics());
        assertEquals(5, c.epochRewindAcceptCount());
        assertEquals(100L, c.leaderlessRefreshMs());
        assertEquals(0.2, c.jitter());
    }

    @Test
    void configValuesAreKafkaSpellings() {
        assertEquals("rebootstrap", RecoveryStrategy.REBOOTSTRAP.configValue());
        assertEquals("none", RecoveryStrategy.NONE.configValue());
        assertEquals("use_all_dns_ips", DnsLookup.USE_ALL_DNS_IPS.configValue());
        assertEquals("resolve_canonical_bootstrap_servers_only",
                DnsLookup.RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY.configValue());
    }

    // ---- client.id ----

    @Test
    void absentClientIdIsGeneratedAndUnique() {
        String a = config().clientId();
        String b = config().clientId();
        assertTrue(a.matches("kmeta-\\d+"), a);
        assertTrue(b.matches("kmeta-\\d+"), b);
        assertNotEquals(a, b);
    }

    @Test
    void blankClientIdIsGenerated() {
        assertTrue(config(CLIENT_ID, "  ").clientId().matches("kmeta-\\d+"));
    }

    @Test
    void givenClientIdIsTrimmedAndKept() {
        assertEquals("orders-producer", config(CLIENT_ID, " orders-producer ").clientId());
    }

    @Test
    void copyKeepsGeneratedClientIdUnlessItSetsOne() {
        MetadataConfig c = config();
        assertEquals(c.clientId(), c.with(MAX_BLOCK_MS, 5).clientId());
        assertEquals("mine", c.with(CLIENT_ID, "mine").clientId());
    }

    @Test
    void invalidConfigUsesNoClientIdNumber() {
        long before = Long.parseLong(config().clientId().substring("kmeta-".length()));
        rejected(RETRY_BACKOFF_MS, -1);
        long after = Long.parseLong(config().clientId().substring("kmeta-".length()));
        assertEquals(before + 1, after);
    }

    // ---- parsing ----

    @Test
    void everyKeyParsesFromTrimmedStrings() {
        MetadataConfig c = config(
                BOOTSTRAP_SERVERS, " a:9092 , b:9093 ",
                CLIENT_ID, " app ",
                METADATA_MAX_AGE_MS, " 1000 ",
                METADATA_MAX_IDLE_MS, "5000",
                MAX_BLOCK_MS, "2000",
                RETRY_BACKOFF_MS, "10",
                RETRY_BACKOFF_MAX_MS, "20",
                RECONNECT_BACKOFF_MS, "30",
                RECONNECT_BACKOFF_MAX_MS, "40",
                REQUEST_TIMEOUT_MS, "50",
                SOCKET_CONNECTION_SETUP_TIMEOUT_MS, "60",
                SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS, "70",
                METADATA_RECOVERY_STRATEGY, " none ",
                METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS, "80",
                CLIENT_DNS_LOOKUP, "resolve_canonical_bootstrap_servers_only",
                ALLOW_AUTO_CREATE_TOPICS, " false ",
                SECURITY_PROTOCOL, "sasl_ssl",
                KMETA_METADATA_MAX_TOPICS, "7",
                KMETA_METADATA_EPOCH_REWIND_ACCEPT_COUNT, "3",
                KMETA_METADATA_LEADERLESS_REFRESH_MS, "0",
                KMETA_METADATA_JITTER, " 0 ");
        assertEquals(List.of("a:9092", "b:9093"), c.bootstrapServers());
        assertEquals("app", c.clientId());
        assertEquals(1000L, c.metadataMaxAgeMs());
        assertEquals(5000L, c.metadataMaxIdleMs());
        assertEquals(2000L, c.maxBlockMs());
        assertEquals(10L, c.retryBackoffMs());
        assertEquals(20L, c.retryBackoffMaxMs());
        assertEquals(30L, c.reconnectBackoffMs());
        assertEquals(40L, c.reconnectBackoffMaxMs());
        assertEquals(50, c.requestTimeoutMs());
        assertEquals(60L, c.socketConnectionSetupTimeoutMs());
        assertEquals(70L, c.socketConnectionSetupTimeoutMaxMs());
        assertEquals(RecoveryStrategy.NONE, c.metadataRecoveryStrategy());
        assertEquals(80L, c.metadataRecoveryRebootstrapTriggerMs());
        assertEquals(DnsLookup.RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY, c.clientDnsLookup());
        assertFalse(c.allowAutoCreateTopics());
        assertEquals("SASL_SSL", c.securityProtocol());
        assertEquals(7, c.maxTopics());
        assertEquals(3, c.epochRewindAcceptCount());
        assertEquals(0L, c.leaderlessRefreshMs());
        assertEquals(0.0, c.jitter());
    }

    @Test
    void everyKeyParsesFromNumbersBooleansListsAndEnums() {
        MetadataConfig c = config(
                BOOTSTRAP_SERVERS, List.of("a:9092", " [::1]:9093"),
                METADATA_MAX_AGE_MS, 1000,
                METADATA_MAX_IDLE_MS, 6000L,
                MAX_BLOCK_MS, (short) 2000,
                RETRY_BACKOFF_MS, BigInteger.TEN,
                RETRY_BACKOFF_MAX_MS, 20.0,
                RECONNECT_BACKOFF_MS, 30,
                RECONNECT_BACKOFF_MAX_MS, 40L,
                REQUEST_TIMEOUT_MS, 50L,
                SOCKET_CONNECTION_SETUP_TIMEOUT_MS, 60,
                SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS, 70,
                METADATA_RECOVERY_STRATEGY, RecoveryStrategy.NONE,
                METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS, 80,
                CLIENT_DNS_LOOKUP, DnsLookup.RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY,
                ALLOW_AUTO_CREATE_TOPICS, Boolean.FALSE,
                KMETA_METADATA_MAX_TOPICS, 7,
                KMETA_METADATA_EPOCH_REWIND_ACCEPT_COUNT, 3L,
                KMETA_METADATA_LEADERLESS_REFRESH_MS, 250,
                KMETA_METADATA_JITTER, 1);
        assertEquals(List.of("a:9092", "[::1]:9093"), c.bootstrapServers());
        assertEquals(1000L, c.metadataMaxAgeMs());
        assertEquals(6000L, c.metadataMaxIdleMs());
        assertEquals(2000L, c.maxBlockMs());
        assertEquals(10L, c.retryBackoffMs());
        assertEquals(20L, c.retryBackoffMaxMs());
        assertEquals(30L, c.reconnectBackoffMs());
        assertEquals(40L, c.reconnectBackoffMaxMs());
        assertEquals(50, c.requestTimeoutMs());
        assertEquals(60L, c.socketConnectionSetupTimeoutMs());
        assertEquals(70L, c.socketConnectionSetupTimeoutMaxMs());
        assertEquals(RecoveryStrategy.NONE, c.metadataRecoveryStrategy());
        assertEquals(80L, c.metadataRecoveryRebootstrapTriggerMs());
        assertEquals(DnsLookup.RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY, c.clientDnsLookup());
        assertFalse(c.allowAutoCreateTopics());
        assertEquals(7, c.maxTopics());
        assertEquals(3, c.epochRewindAcceptCount());
        assertEquals(250L, c.leaderlessRefreshMs());
        assertEquals(1.0, c.jitter());
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAINTEXT", "ssl", "Sasl_Plaintext", "SASL_SSL"})
    void securityProtocolIsCaseInsensitiveAndUpperCased(String given) {
        assertEquals(given.toUpperCase(java.util.Locale.ROOT), config(SECURITY_PROTOCOL, given).securityProtocol());
    }

    @Test
    void enumsAreCaseInsensitive() {
        assertEquals(RecoveryStrategy.REBOOTSTRAP, config(METADATA_RECOVERY_STRATEGY, "REBOOTSTRAP")
                .metadataRecoveryStrategy());
        assertEquals(DnsLookup.USE_ALL_DNS_IPS, config(CLIENT_DNS_LOOKUP, "USE_ALL_DNS_IPS").clientDnsLookup());
        assertTrue(config(ALLOW_AUTO_CREATE_TOPICS, "TRUE").allowAutoCreateTopics());
    }

    @Test
    void jitterTakesFractionsFromStringsAndNumbers() {
        assertEquals(0.35, config(KMETA_METADATA_JITTER, "0.35").jitter());
        assertEquals(0.5f, config(KMETA_METADATA_JITTER, 0.5f).jitter());
    }

    @Test
    void fromPropertiesTakesStringsObjectsAndDefaults() {
        Properties defaults = new Properties();
        defaults.setProperty(METADATA_MAX_AGE_MS, "1234");
        defaults.setProperty(MAX_BLOCK_MS, "1");
        Properties props = new Properties(defaults);
        props.setProperty(BOOTSTRAP_SERVERS, "broker:9092");
        props.put(MAX_BLOCK_MS, 5000); // an Integer, as producer code often puts
        props.setProperty("acks", "all");
        MetadataConfig c = MetadataConfig.from(props);
        assertEquals(List.of("broker:9092"), c.bootstrapServers());
        assertEquals(5000L, c.maxBlockMs());
        assertEquals(1234L, c.metadataMaxAgeMs());
        assertEquals("all", c.originals().get("acks"));
    }

    @Test
    void propertiesWithANonStringKeyFailNamingIt() {
        Properties props = new Properties();
        props.put(42, "x");
        ConfigException e = assertThrows(ConfigException.class, () -> MetadataConfig.from(props));
        assertTrue(e.getMessage().contains("42"), e.getMessage());
    }

    // ---- bootstrap.servers ----

    @Test
    void bootstrapServersKeepRawEntriesSkippingEmptyOnes() {
        MetadataConfig c = config(BOOTSTRAP_SERVERS,
                "broker-1.example.com:9092,, 10.0.0.1:1 ,[::1]:9092,[fe80::1%eth0]:65535,SASL_SSL://b:9094,");
        assertEquals(List.of("broker-1.example.com:9092", "10.0.0.1:1", "[::1]:9092", "[fe80::1%eth0]:65535",
                "SASL_SSL://b:9094"), c.bootstrapServers());
        assertSame(c.bootstrapServers(), c.requireBootstrapServers());
    }

    @Test
    void absentBootstrapServersAreEmptyUntilRequired() {
        MetadataConfig c = config();
        assertTrue(c.bootstrapServers().isEmpty());
        ConfigException e = assertThrows(ConfigException.class, c::requireBootstrapServers);
        assertEquals(BOOTSTRAP_SERVERS, e.key());
        assertTrue(e.getMessage().contains(BOOTSTRAP_SERVERS), e.getMessage());
        assertThrows(ConfigException.class, config(BOOTSTRAP_SERVERS, " , ")::requireBootstrapServers);
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "localhost:", ":9092", "host:0", "host:65536", "host:123456", "host:http",
        "::1:9092", "[::1]", "[::1]9092", "host name:9092", "host:9092:9093", "host:-1", "a:9092,b"})
    void badBootstrapEntryFailsNamingKeyAndEntry(String servers) {
        ConfigException e = rejected(BOOTSTRAP_SERVERS, servers);
        assertEquals(BOOTSTRAP_SERVERS, e.key());
        String badEntry = servers.startsWith("a:9092,") ? "b" : servers;
        assertTrue(e.getMessage().startsWith("Invalid value " + badEntry + " for configuration bootstrap.servers: "),
                e.getMessage());
        assertTrue(e.getMessage().contains("host:port"), e.getMessage());
    }

    @Test
    void bootstrapListWithANonStringEntryFails() {
        ConfigException e = rejected(BOOTSTRAP_SERVERS, List.of("a:1", 7));
        assertEquals(BOOTSTRAP_SERVERS, e.key());
        assertEquals(BOOTSTRAP_SERVERS, rejected(BOOTSTRAP_SERVERS, 9092).key());
    }

    @Test
    void bootstrapServersListIsUnmodifiable() {
        List<String> servers = config(BOOTSTRAP_SERVERS, "a:1").bootstrapServers();
        assertThrows(UnsupportedOperationException.class, () -> servers.add("b:2"));
    }

    // ---- bad values ----

    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of(METADATA_MAX_AGE_MS, -1, "must be a whole number >= 0"),
                Arguments.of(METADATA_MAX_AGE_MS, "soon", "must be a whole number >= 0"),
                Arguments.of(METADATA_MAX_IDLE_MS, 4999, "must be a whole number >= 5000"),
                Arguments.of(METADATA_MAX_IDLE_MS, "-5", "must be a whole number >= 5000"),
                Arguments.of(MAX_BLOCK_MS, -1L, "must be a whole number >= 0"),
                Arguments.of(MAX_BLOCK_MS, "60s", "must be a whole number >= 0"),
                Arguments.of(MAX_BLOCK_MS, 1.5, "must be a whole number >= 0"),
                Arguments.of(MAX_BLOCK_MS, "99999999999999999999", "must be a whole number >= 0"),
                Arguments.of(MAX_BLOCK_MS, true, "must be a whole number >= 0"),
                Arguments.of(RETRY_BACKOFF_MS, -5, "must be a whole number >= 0"),
                Arguments.of(RETRY_BACKOFF_MAX_MS, "-1", "must be a whole number >= 0"),
                Arguments.of(RECONNECT_BACKOFF_MS, "x", "must be a whole number >= 0"),
                Arguments.of(RECONNECT_BACKOFF_MAX_MS, -1, "must be a whole number >= 0"),
                Arguments.of(REQUEST_TIMEOUT_MS, -1, "must be a whole number between 0 and 2147483647"),
                Arguments.of(REQUEST_TIMEOUT_MS, 2147483648L, "must be a whole number between 0 and 2147483647"),
                Arguments.of(SOCKET_CONNECTION_SETUP_TIMEOUT_MS, -1, "must be a whole number >= 0"),
                Arguments.of(SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS, "ten", "must be a whole number >= 0"),
                Arguments.of(METADATA_RECOVERY_STRATEGY, "retry", "must be one of none, rebootstrap"),
                Arguments.of(METADATA_RECOVERY_STRATEGY, 1, "must be one of none, rebootstrap"),
                Arguments.of(METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS, -1, "must be a whole number >= 0"),
                Arguments.of(CLIENT_DNS_LOOKUP, "default",
                        "must be one of use_all_dns_ips, resolve_canonical_bootstrap_servers_only"),
                Arguments.of(ALLOW_AUTO_CREATE_TOPICS, "yes", "must be true or false"),
                Arguments.of(ALLOW_AUTO_CREATE_TOPICS, 1, "must be true or false"),
                Arguments.of(SECURITY_PROTOCOL, "TLS", "must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"),
                Arguments.of(CLIENT_ID, 5, "must be a string"),
                Arguments.of(KMETA_METADATA_MAX_TOPICS, 0, "must be a whole number between 1 and 2147483647"),
                Arguments.of(KMETA_METADATA_MAX_TOPICS, "lots", "must be a whole number between 1 and 2147483647"),
                Arguments.of(KMETA_METADATA_EPOCH_REWIND_ACCEPT_COUNT, 0,
                        "must be a whole number between 1 and 2147483647"),
                Arguments.of(KMETA_METADATA_LEADERLESS_REFRESH_MS, -100, "must be a whole number >= 0"),
                Arguments.of(KMETA_METADATA_JITTER, 1.5, "must be a number between 0.0 and 1.0 inclusive"),
                Arguments.of(KMETA_METADATA_JITTER, "-0.1", "must be a number between 0.0 and 1.0 inclusive"),
                Arguments.of(KMETA_METADATA_JITTER, "NaN", "must be a number between 0.0 and 1.0 inclusive"),
                Arguments.of(KMETA_METADATA_JITTER, "a fifth", "must be a number between 0.0 and 1.0 inclusive"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("badValues")
    void badValueFailsNamingKeyValueAndRange(String key, Object value, String requirement) {
        ConfigException e = rejected(key, value);
        assertEquals(key, e.key());
        assertTrue(e.getMessage().startsWith("Invalid value " + value + " for configuration " + key + ": "
                + requirement), e.getMessage());
    }

    @Test
    void messageHasKafkasForm() {
        assertEquals("Invalid value -5 for configuration retry.backoff.ms: must be a whole number >= 0",
                rejected(RETRY_BACKOFF_MS, "-5").getMessage());
    }

    @Test
    void exceptionIsAnIllegalArgumentException() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config(MAX_BLOCK_MS, -1));
        assertTrue(e instanceof ConfigException);
    }

    @Test
    void nullValueOfAKnownKeyFailsButOfAnUnknownKeyIsKept() {
        assertEquals(MAX_BLOCK_MS, rejected(MAX_BLOCK_MS, null).key());
        MetadataConfig c = config("some.plugin.setting", null);
        assertTrue(c.originals().containsKey("some.plugin.setting"));
    }

    @Test
    void boundaryValuesAreAccepted() {
        MetadataConfig c = config(METADATA_MAX_IDLE_MS, 5000, MAX_BLOCK_MS, Long.MAX_VALUE, METADATA_MAX_AGE_MS, 0,
                REQUEST_TIMEOUT_MS, Integer.MAX_VALUE, KMETA_METADATA_MAX_TOPICS, 1,
                KMETA_METADATA_EPOCH_REWIND_ACCEPT_COUNT, Integer.MAX_VALUE, KMETA_METADATA_JITTER, 0);
        assertEquals(5000L, c.metadataMaxIdleMs());
        assertEquals(Long.MAX_VALUE, c.maxBlockMs());
        assertEquals(Integer.MAX_VALUE, c.requestTimeoutMs());
        assertEquals(1, c.maxTopics());
    }

    // ---- base / max pairs ----

    static Stream<Arguments> pairs() {
        return Stream.of(
                Arguments.of(RETRY_BACKOFF_MS, RETRY_BACKOFF_MAX_MS),
                Arguments.of(RECONNECT_BACKOFF_MS, RECONNECT_BACKOFF_MAX_MS),
                Arguments.of(SOCKET_CONNECTION_SETUP_TIMEOUT_MS, SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS));
    }

    @ParameterizedTest
    @MethodSource("pairs")
    void bothGivenWithMaxBelowBaseFailsNamingBothKeys(String baseKey, String maxKey) {
        ConfigException e = rejected(baseKey, 500, maxKey, "400");
        assertEquals(maxKey, e.key());
        assertEquals("Invalid value 400 for configuration " + maxKey + ": must be >= " + baseKey + " (500)",
                e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("pairs")
    void bothGivenEqualIsAConstant(String baseKey, String maxKey) {
        MetadataConfig c = config(baseKey, 700, maxKey, 700);
        assertEquals(List.of(700L, 700L), pairOf(c, baseKey));
    }

    @Test
    void retryBaseAloneAboveDefaultMaxWinsAsAConstant() {
        // kafka-clients 4.x would apply retry.backoff.max.ms (1000) as the constant; kmeta honours the key given.
        assertEquals(List.of(5000L, 5000L), pairOf(config(RETRY_BACKOFF_MS, 5000), RETRY_BACKOFF_MS));
        assertEquals(List.of(60_000L, 60_000L), pairOf(config(SOCKET_CONNECTION_SETUP_TIMEOUT_MS, 60_000),
                SOCKET_CONNECTION_SETUP_TIMEOUT_MS));
    }

    @Test
    void retryBaseAloneBelowDefaultMaxKeepsTheDefaultMax() {
        assertEquals(List.of(200L, 1000L), pairOf(config(RETRY_BACKOFF_MS, 200), RETRY_BACKOFF_MS));
    }

    @ParameterizedTest
    @MethodSource("pairs")
    void maxAloneBelowDefaultBaseIsAConstantAtMax(String baseKey, String maxKey) {
        // As kafka-clients: a maximum below the base gives a constant backoff of the maximum.
        assertEquals(List.of(10L, 10L), pairOf(config(maxKey, 10), baseKey));
    }

    @Test
    void reconnectBaseAloneAlsoSetsTheMaxAsKafkaClientsDoes() {
        assertEquals(List.of(200L, 200L), pairOf(config(RECONNECT_BACKOFF_MS, 200), RECONNECT_BACKOFF_MS));
        assertEquals(List.of(200L, 5000L), pairOf(config(RECONNECT_BACKOFF_MS, 200, RECONNECT_BACKOFF_MAX_MS, 5000),
                RECONNECT_BACKOFF_MS));
    }

    private static List<Long> pairOf(MetadataConfig c, String baseKey) {
        switch (baseKey) {
            case RETRY_BACKOFF_MS:
                return List.of(c.retryBackoffMs(), c.retryBackoffMaxMs());
            case RECONNECT_BACKOFF_MS:
                return List.of(c.reconnectBackoffMs(), c.reconnectBackoffMaxMs());
            default:
                return List.of(c.socketConnectionSetupTimeoutMs(), c.socketConnectionSetupTimeoutMaxMs());
        }
    }

    // ---- secrets, originals, toString ----

    private static final Map<String, String> SECRETS = Map.of(
            "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                    + "username=\"alice\" password=\"jaas-s3cret-1\";",
            "ssl.keystore.password", "keystore-s3cret-2",
            "ssl.key.password", "key-s3cret-3",
            "ssl.truststore.password", "truststore-s3cret-4",
            "sasl.oauthbearer.client.credentials.client.secret", "oauth-s3cret-5",
            "ssl.keystore.key", "-----BEGIN ENCRYPTED PRIVATE KEY-----pem-s3cret-6",
            "listener.name.client.scram-sha-256.sasl.jaas.config", "jaas-s3cret-7",
            "basic.auth.user.info", "alice:userinfo-s3cret-8",
            "sasl.oauthbearer.assertion.private.key.passphrase", "passphrase-s3cret-9",
            "my.plugin.api.token", "token-s3cret-10");

    @Test
    void toStringHidesEverySecretAndShowsTheRest() {
        Map<String, Object> props = new HashMap<>(SECRETS);
        props.put(BOOTSTRAP_SERVERS, "broker-1:9092");
        props.put(CLIENT_ID, "billing");
        props.put(SECURITY_PROTOCOL, "SASL_SSL");
        props.put("sasl.mechanism", "SCRAM-SHA-512");
        props.put("ssl.truststore.location", "/etc/kafka/truststore.jks");
        props.put("acks", "all");
        props.put(MAX_BLOCK_MS, "5000");
        String s = MetadataConfig.from(props).toString();
        for (Map.Entry<String, String> secret : SECRETS.entrySet()) {
            assertFalse(s.contains(secret.getValue()), secret.getKey() + " leaked: " + s);
            assertFalse(s.contains("s3cret"), s);
            assertTrue(s.contains(secret.getKey() + "=[hidden]"), s);
        }
        for (String visible : List.of("bootstrap.servers=[broker-1:9092]", "client.id=billing",
                "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512",
                "ssl.truststore.location=/etc/kafka/truststore.jks", "acks=all", "max.block.ms=5000",
                "retry.backoff.ms=100", "kmeta.metadata.jitter=0.2", "metadata.recovery.strategy=rebootstrap")) {
            assertTrue(s.contains(visible), visible + " missing: " + s);
        }
    }

    /** 200 random secrets of 6 to 40 letters and digits, after the shortest and longest edge cases. */
    @Test
    void noSecretValueEverReachesToString() {
        List<String> edges = List.of("000000", "aaaaaa", "Z9Z9Z9", "a".repeat(40), "0123456789".repeat(4));
        forAll(edges, 200, random -> alphanumeric(random, 6 + random.nextInt(35)), secret -> {
            Map<String, Object> props = new HashMap<>();
            for (String key : SECRETS.keySet()) {
                props.put(key, "~" + secret + "~");
            }
            props.put("sasl.login.refresh.token.value", "~" + secret + "~");
            assertFalse(MetadataConfig.from(props).toString().contains(secret));
        });
    }

    @Test
    void originalsKeepEveryPropertyIncludingUnknownAndSecretOnes() {
        Map<String, Object> props = new HashMap<>(SECRETS);
        props.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        props.put("kmeta.metadata.max.topcs", "5"); // a typo: warned, kept, never rejected
        props.put(MAX_BLOCK_MS, "5000");
        Map<String, Object> originals = MetadataConfig.from(props).originals();
        assertEquals(props, originals);
        assertEquals("5000", originals.get(MAX_BLOCK_MS));
        assertThrows(UnsupportedOperationException.class, () -> originals.put("x", "y"));
    }

    @Test
    void laterChangesToTheInputDoNotReachTheConfig() {
        Map<String, Object> props = new HashMap<>();
        props.put(MAX_BLOCK_MS, "5000");
        MetadataConfig c = MetadataConfig.from(props);
        props.put(MAX_BLOCK_MS, "1");
        props.put("acks", "0");
        assertEquals(5000L, c.maxBlockMs());
        assertFalse(c.originals().containsKey("acks"));
    }

    @Test
    void withCopiesValidatesAndRemoves() {
        MetadataConfig c = config(BOOTSTRAP_SERVERS, "a:1", "acks", "all", MAX_BLOCK_MS, 10);
        MetadataConfig d = c.with(KMETA_METADATA_JITTER, 0);
        assertEquals(0.0, d.jitter());
        assertEquals(0.2, c.jitter());
        assertEquals("all", d.originals().get("acks"));
        assertEquals(List.of("a:1"), d.bootstrapServers());
        assertEquals(60_000L, d.with(MAX_BLOCK_MS, null).maxBlockMs());
        ConfigException e = assertThrows(ConfigException.class, () -> c.with(KMETA_METADATA_JITTER, 2));
        assertEquals(KMETA_METADATA_JITTER, e.key());
    }

    // ---- properties (seeded random inputs; a failure names the seed and the input) ----

    /** The first seed of the random cases: case i uses seed {@code SEED + i}. */
    private static final long SEED = 0x6b6d657461L;

    /**
     * Runs {@code check} on every edge case, then on {@code tries} inputs made by {@code generator}, each from a
     * {@link Random} of its own seed, so one failing case can be replayed alone. A failure names the seed (or the
     * edge case) and the input.
     */
    private static <T> void forAll(List<T> edges, int tries, Function<Random, T> generator, Consumer<T> check) {
        for (T input : edges) {
            run("edge case", input, check);
        }
        for (int i = 0; i < tries; i++) {
            long seed = SEED + i;
            run("seed " + seed, generator.apply(new Random(seed)), check);
        }
    }

    private static <T> void run(String origin, T input, Consumer<T> check) {
        try {
            check.accept(input);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(origin + ", input " + describe(input) + ": " + e.getMessage(), e);
        }
    }

    /** The input with every character outside printable ASCII escaped, so the message shows it exactly. */
    private static String describe(Object input) {
        StringBuilder out = new StringBuilder();
        for (char c : String.valueOf(input).toCharArray()) {
            if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return input instanceof String ? '"' + out.toString() + '"' : out.toString();
    }

    private static String alphanumeric(Random random, int length) {
        String chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append(chars.charAt(random.nextInt(chars.length())));
        }
        return out.toString();
    }

    /** 300 random (base, max) pairs in 0..100,000, after the bounds and the pairs around max == base. */
    @Test
    void anExplicitPairIsAcceptedExactlyWhenMaxIsAtLeastBase() {
        List<long[]> edges = List.of(new long[] {0, 0}, new long[] {0, 100_000}, new long[] {100_000, 0},
                new long[] {100_000, 100_000}, new long[] {500, 500}, new long[] {500, 499}, new long[] {499, 500},
                new long[] {1, 0});
        forAll(edges, 300, random -> new long[] {random.nextInt(100_001), random.nextInt(100_001)}, pair -> {
            long base = pair[0];
            long max = pair[1];
            Map<String, Object> props = Map.of(RETRY_BACKOFF_MS, String.valueOf(base), RETRY_BACKOFF_MAX_MS, max);
            if (max >= base) {
                MetadataConfig c = MetadataConfig.from(props);
                assertEquals(base, c.retryBackoffMs());
                assertEquals(max, c.retryBackoffMaxMs());
            } else {
                assertEquals(RETRY_BACKOFF_MAX_MS,
                        assertThrows(ConfigException.class, () -> MetadataConfig.from(props)).key());
            }
        });
    }

    /** Characters that mean something to the bootstrap parser, and some that look like them. */
    private static final String BOOTSTRAP_CHARS = "ab.-_09:[],% /\t\n\r\u000b\u00a0\u2003\u3000:@";

    /**
     * An arbitrary string: empty sometimes, up to 255 characters, each either a character the
     * parser cares about or any UTF-16 code unit (lone surrogates and controls included).
     */
    private static String anyString(Random random) {
        int length = random.nextInt(8) == 0 ? 0 : random.nextInt(4) == 0 ? random.nextInt(256) : random.nextInt(24);
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append(random.nextBoolean() ? BOOTSTRAP_CHARS.charAt(random.nextInt(BOOTSTRAP_CHARS.length()))
                    : (char) random.nextInt(0x10000));
        }
        return out.toString();
    }

    /** 1,000 random strings after edge cases (empty, blank, separators only, boundary characters). */
    @Test
    void anyBootstrapStringEitherParsesOrFailsWithTheKey() {
        List<String> edges = new ArrayList<>(List.of("", " ", ",", ", ,", ":", "[", "]", "[]", "[]:", "a:", ":1",
                "a:1", "a:1,", "\u0000", "\uffff", "\ud800", "\u00a0a:1\u00a0", "a:1\tb:2", "x".repeat(255)));
        forAll(edges, 1000, MetadataConfigTest::anyString, servers -> {
            try {
                MetadataConfig c = MetadataConfig.from(Map.of(BOOTSTRAP_SERVERS, servers));
                for (String s : c.bootstrapServers()) {
                    assertFalse(s.isEmpty());
                    assertEquals(s.trim(), s);
                }
            } catch (ConfigException e) {
                assertEquals(BOOTSTRAP_SERVERS, e.key());
            }
        });
    }

    @Test
    void aFailingCaseNamesItsSeedAndInput() {
        AssertionError e = assertThrows(AssertionError.class, () -> forAll(List.of(), 5,
                random -> "in\u0000put-" + random.nextInt(3), input -> assertFalse(input.endsWith("-0") || input
                        .endsWith("-1") || input.endsWith("-2"))));
        assertTrue(e.getMessage().startsWith("seed " + SEED + ", input \"in\\u0000put-"), e.getMessage());
    }
}
