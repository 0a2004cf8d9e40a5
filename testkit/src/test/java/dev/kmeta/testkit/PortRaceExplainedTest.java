package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@link PortRace#explained}: the evidence a failed node start gets, checked on loopback without a broker. */
class PortRaceExplainedTest {
    private static final Path DIR = Path.of("target", "port-race-explained-test");

    private static KafkaNode broker(int clientPort, int internalPort) {
        KafkaNode node = new InProcessNode(1, KafkaNode.Role.BROKER, DIR);
        node.clientPort = clientPort;
        node.internalPort = internalPort;
        return node;
    }

    @Test
    void aFailureWithEveryPortFreeAndNoHaltIsLeftAsItIs() {
        KafkaNode node = broker(FreePorts.next(), FreePorts.next());
        assertNull(PortRace.explained(node, 0, new IllegalStateException("log dir not writable")));
    }

    @Test
    void aHaltWithEveryPortFreeSaysSo() {
        KafkaNode node = broker(FreePorts.next(), FreePorts.next());
        RuntimeException halt = new RuntimeException("start failed",
                new KafkaExit.Called("halt", 1, null, "main", Instant.EPOCH));
        IllegalStateException explained = PortRace.explained(node, 0, halt);
        assertSame(halt, explained.getCause());
        assertTrue(explained.getMessage().contains("Kafka called Exit during its start"), explained.getMessage());
        assertEquals(0, explained.getSuppressed().length);
    }

    @Test
    void aTakenPortIsNamedAndAttached() throws Exception {
        try (ServerSocket rival = new ServerSocket()) {
            rival.bind(new InetSocketAddress(KafkaCluster.LOOPBACK, FreePorts.next()));
            int taken = rival.getLocalPort();
            KafkaNode node = broker(FreePorts.next(), taken);
            IllegalStateException explained = PortRace.explained(node, 0, new IllegalStateException("no start"));
            assertTrue(explained.getMessage().contains("port " + taken + " (INTERNAL listener of node 1) was taken"),
                    explained.getMessage());
            assertEquals(1, explained.getSuppressed().length);
            assertInstanceOf(java.net.BindException.class, explained.getSuppressed()[0]);
        }
    }
}
