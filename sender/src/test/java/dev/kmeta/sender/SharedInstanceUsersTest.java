package dev.kmeta.sender;

import dev.kmeta.testkit.LogCapture;
import dev.kmeta.sender.internal.Handles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.testkit.TestClients.closedPort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 28: a shared instance's logs carry its first user's client.id only, so it says who shares it: an INFO line
 * when a user joins or leaves names the instance and every user, and its MBean has {@code Sharing} and
 * {@code Users}. No broker is needed (the bootstrap is a loopback port nothing listens on).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SharedInstanceUsersTest {
    @Test
    void usersJoiningAndLeavingASharedInstanceAreLoggedAndInItsMBean() throws Exception {
        String bootstrap = "127.0.0.1:" + closedPort();
        String text;
        try (LogCapture logs = LogCapture.at("info", "dev.kmeta.sender.internal.SenderCore")) {
            try (KafkaMetadata first = KafkaMetadata.shared(Map.of("bootstrap.servers", bootstrap, "client.id",
                    "users-a"))) {
                ObjectName name = first.mbeanName();
                try (KafkaMetadata second = KafkaMetadata.shared(Map.of("bootstrap.servers", bootstrap, "client.id",
                        "users-b"))) {
                    assertTrue(Handles.sameInstance(first, second));
                    assertEquals("shared", ManagementFactory.getPlatformMBeanServer().getAttribute(name, "Sharing"));
                    assertEquals(List.of("users-a", "users-b"), List.of((String[])
                            ManagementFactory.getPlatformMBeanServer().getAttribute(name, "Users")));
                }
                assertEquals(List.of("users-a"), List.of((String[])
                        ManagementFactory.getPlatformMBeanServer().getAttribute(name, "Users")));
            }
            text = logs.text();
        }
        assertTrue(text.contains("[users-a] kmeta metadata starting, shared by the users of [" + bootstrap + "]"),
                text);
        assertTrue(text.contains("[users-a] users-b joined this shared kmeta instance: its users are now "
                + "[users-a, users-b]"), text);
        assertTrue(text.contains("[users-a] users-b left this shared kmeta instance: its users are now [users-a]"),
                text);
    }

    @Test
    void aPrivateInstanceIsNotShared() throws Exception {
        try (KafkaMetadata m = KafkaMetadata.create(Map.of("bootstrap.servers", "127.0.0.1:" + closedPort(),
                "client.id", "users-private"))) {
            assertEquals("private", ManagementFactory.getPlatformMBeanServer().getAttribute(m.mbeanName(),
                    "Sharing"));
            assertEquals(List.of("users-private"), List.of((String[])
                    ManagementFactory.getPlatformMBeanServer().getAttribute(m.mbeanName(), "Users")));
        }
    }
}
