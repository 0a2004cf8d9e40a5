package dev.kmeta.sender.internal;

import dev.kmeta.sender.KafkaMetadata;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shared instances are keyed by the credentials' values, even when they are kafka-clients Password objects. */
class SharedIdentityTest {
    private static Map<String, Object> props(int port, Object jaas) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", "127.0.0.1:" + port);
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config", jaas);
        return p;
    }

    private static String jaas(String user) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                + "\" password=\"" + user + "-secret\";";
    }

    @Test
    void differentPasswordObjectsNeverShareAnInstance() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (KafkaMetadata alice = KafkaMetadata.shared(props(port, new Password(jaas("alice"))));
             KafkaMetadata bob = KafkaMetadata.shared(props(port, new Password(jaas("bob"))));
             KafkaMetadata alice2 = KafkaMetadata.shared(props(port, new Password(jaas("alice"))))) {
            assertFalse(Handles.sameInstance(alice, bob), "bob must not get alice's credentials");
            assertTrue(Handles.sameInstance(alice, alice2));
        }
    }
}
