package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.MetadataTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A send with {@code max.block.ms=0} (a non-blocking producer) never waits, but it must still make the topic known
 * for the next send: kafka-clients' {@code waitOnMetadata} adds the topic and asks for it before it looks at the
 * budget. Found while modelling zero-budget waits for {@link ManagerLincheckTest}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ZeroBudgetTest {

    @Test
    void aZeroBudgetWaitForANewTopicStillAsksForIt() {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 3, 0);
            h.step(); // bootstrap
            h.advance(1_000);
            assertThrows(MetadataTimeoutException.class, () -> h.manager.awaitTopic("orders", h.deadline(0)));
            RefreshRequest r = h.step();
            assertNotNull(r, "the zero-budget wait subscribed the topic but nothing asked for it");
            assertEquals(Set.of("orders"), r.topics());
            assertEquals(3, h.manager.awaitTopic("orders", h.deadline(0)).partitionCount("orders"),
                    "the next non-blocking send finds the topic");
        }
    }

    @Test
    void aZeroBudgetWaitForAKnownPartitionWithoutLeaderAsksForARefresh() {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 1, 0);
            h.step();
            h.advance(1_000);
            assertThrows(MetadataTimeoutException.class, () -> h.manager.awaitTopic("orders", h.deadline(0)));
            assertEquals(Set.of("orders"), h.step().topics());
            h.broker.topic("orders", 2, 0); // partition 1 added at the brokers
            h.advance(1_000);
            assertThrows(MetadataTimeoutException.class, () -> h.manager.awaitTopic("orders", 1, h.deadline(0)));
            RefreshRequest r = h.step();
            assertNotNull(r, "partition 1 is not known yet: the zero-budget wait must ask for the topic again");
            assertEquals(2, h.manager.awaitTopic("orders", 1, h.deadline(0)).partitionCount("orders"));
        }
    }
}
