package dev.kmeta.sender.internal;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link NodeProvider} tells kafka-clients' two calls of {@code rebootstrap(now)} apart: after
 * {@code needsRebootstrap} said yes it is the trigger's; without it (kafka-clients 4.4 after an ApiVersions
 * {@code REBOOTSTRAP_REQUIRED}, KIP-1242) it is a refusal of the client's identity.
 */
class NodeProviderRebootstrapTest {
    private final List<String> calls = new ArrayList<>();
    private boolean due;

    private final NodeProvider.Listener listener = new NodeProvider.Listener() {
        @Override
        public void onDisconnect(String nodeId, AuthenticationException authFailure) {
        }

        @Override
        public boolean needsRebootstrap(long triggerMs) {
            return due;
        }

        @Override
        public void rebootstrap() {
            calls.add("trigger");
        }

        @Override
        public void identityRefused(long clientNowMs) {
            calls.add("refused@" + clientNowMs);
        }

        @Override
        public String clusterId() {
            return "c1";
        }

        @Override
        public long step(long clientNowMs) {
            return 0;
        }
    };

    @Test
    void aRebootstrapAfterTheTriggerSaidYesIsTheTriggersAndOneWithoutItIsARefusal() {
        NodeProvider nodes = new NodeProvider(List.of(new Node(-1, "localhost", 9092)), listener);
        assertEquals("c1", nodes.clusterId(), "what kafka-clients 4.4 sends with ApiVersions v5");

        due = true;
        assertTrue(nodes.needsRebootstrap(10, 300_000));
        nodes.rebootstrap(10);
        nodes.rebootstrap(20); // no needsRebootstrap before it: the broker refused
        due = false;
        nodes.needsRebootstrap(30, 300_000);
        nodes.rebootstrap(30);
        assertEquals(List.of("trigger", "refused@20", "refused@30"), calls);
    }
}
