package dev.kmeta.sender;

import dev.kmeta.testkit.LogCapture;
import dev.kmeta.metadata.ConfigException;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Security settings kafka-clients cannot build a network client on fail {@link KafkaMetadata#create} with kmeta's
 * {@link ConfigException} naming the key (and the file, for a store), not with kafka-clients' "Failed to create new
 * NetworkClient"; a missing store file is found before kafka-clients opens it (which would log an ERROR with a stack
 * trace); no secret is in a message. No broker needed: the client fails as it starts.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChannelSettingsTest {
    @TempDir
    Path dir;

    private static ConfigException startFails(Map<String, Object> settings) {
        Map<String, Object> props = ItSupport.fastProps("127.0.0.1:1");
        props.putAll(settings);
        return assertThrows(ConfigException.class, () -> KafkaMetadata.create(props).close());
    }

    @Test
    void aMissingTrustStoreNamesTheKeyAndTheFileWithoutKafkaLoggingAStackTrace() {
        ConfigException e;
        String logged;
        try (LogCapture logs = LogCapture.at("warn", "org.apache.kafka", "dev.kmeta")) {
            e = startFails(Map.of("security.protocol", "SSL", "ssl.truststore.location", "/nonexistent"));
            logged = logs.text();
        }
        assertEquals("ssl.truststore.location=/nonexistent: file not found", e.getMessage());
        assertEquals("ssl.truststore.location", e.key());
        assertInstanceOf(NoSuchFileException.class, e.getCause());
        assertEquals("", logged, "nothing logged: the message says it all");
    }

    @Test
    void aMissingKeyStoreNamesItsKey() {
        ConfigException e = startFails(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN",
                "ssl.keystore.location", "/nonexistent/client.p12", "ssl.keystore.password", "hush"));
        assertEquals("ssl.keystore.location=/nonexistent/client.p12: file not found", e.getMessage());
        assertEquals("ssl.keystore.location", e.key());
        assertFalse(e.getMessage().contains("hush"));
    }

    @Test
    void aDirectoryIsNoStoreFile() {
        ConfigException e = startFails(Map.of("security.protocol", "SSL", "ssl.truststore.location", dir.toString()));
        assertEquals("ssl.truststore.location=" + dir + ": a directory, not a trust store file", e.getMessage());
    }

    @Test
    void aStoreKafkaCannotLoadNamesTheKeyTheFileAndWhyKeepingKafkasFailureAsTheCause() throws IOException {
        Path garbage = Files.write(dir.resolve("trust.jks"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        ConfigException e = startFails(Map.of("security.protocol", "SSL", "ssl.truststore.location",
                garbage.toString(), "ssl.truststore.password", "hush"));
        assertEquals("ssl.truststore.location", e.key());
        assertTrue(e.getMessage().startsWith("ssl.truststore.location=" + garbage + ": cannot load it as a JKS "
                + "trust store: "), e.getMessage());
        assertTrue(e.getMessage().endsWith("(check ssl.truststore.type and ssl.truststore.password)"), e.getMessage());
        assertFalse(e.getMessage().contains("hush"), e.getMessage());
        KafkaException kafka = assertInstanceOf(KafkaException.class, e.getCause());
        assertEquals("Failed to create new NetworkClient", kafka.getMessage());
    }

    @Test
    void aJaasConfigKafkaCannotParseNamesTheKeyButNoneOfItsValues() {
        ConfigException missing = startFails(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN"));
        assertEquals("sasl.jaas.config", missing.key());
        assertTrue(missing.getMessage().startsWith("sasl.jaas.config: Could not find a 'KafkaClient' entry"),
                missing.getMessage());

        ConfigException bad = startFails(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                        + "username=\"u\" password=\"s3cret\""));
        assertEquals("sasl.jaas.config: JAAS config entry not terminated by semi-colon", bad.getMessage());

        ConfigException unknownModule = startFails(Map.of("security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", "PLAIN", "sasl.jaas.config", "com.example.NoSuchModule required password=\"s3cret\";"));
        assertTrue(unknownModule.getMessage().startsWith("sasl.jaas.config: ")
                && unknownModule.getMessage().contains("No LoginModule found for com.example.NoSuchModule"),
                unknownModule.getMessage());
        assertFalse(unknownModule.getMessage().contains("s3cret"), unknownModule.getMessage());
    }
}
