package dev.kmeta.metadata.internal;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link Subscriptions.Names#stableCopy}, what a full request asks for: the same object while no topic was added or
 * expired (so the sender builds nothing per full request), a new one with the new names as soon as one was; and the
 * state machine's full requests hold it as it is, partial ones their own set.
 */
class SubscriptionsStableCopyTest {
    private final Subscriptions subscriptions = new Subscriptions(100, new Counters());

    @Test
    void theSameCopyUntilATopicIsAddedOrExpired() {
        subscriptions.subscribe("a", 0);
        subscriptions.subscribe("b", 0);
        Set<String> first = subscriptions.names().stableCopy();
        assertEquals(Set.of("a", "b"), first);
        assertThrows(UnsupportedOperationException.class, () -> first.add("c"));
        assertSame(first, subscriptions.names().stableCopy(), "nothing changed");
        subscriptions.subscribe("a", 5); // already there: no change
        assertSame(first, subscriptions.names().stableCopy());

        subscriptions.subscribe("c", 10);
        Set<String> second = subscriptions.names().stableCopy();
        assertNotSame(first, second);
        assertEquals(Set.of("a", "b", "c"), second);
        assertEquals(Set.of("a", "b"), first, "a copy handed out never changes");
        assertSame(second, subscriptions.names().stableCopy());

        subscriptions.names(); // the live view
        assertEquals(Set.of("a", "b", "c"), subscriptions.names());
        assertEquals(2, subscriptions.expire(10 + 1_000, 1_000, dev.kmeta.metadata.Ticker.system()).size(), "a and b idle for 1,010 ns, c for 1,000");
        assertEquals(Set.of("c"), subscriptions.names().stableCopy());
        assertEquals(Set.of("c"), subscriptions.names(), "the live view follows");
    }

    @Test
    void fullRequestsHoldTheStableCopyPartialOnesTheirOwn() {
        RefreshStateMachine machine = new RefreshStateMachine("test", 300_000, new Backoff(0, 0, 0),
                new Backoff(0, 0, 0));
        subscriptions.subscribe("a", 0);
        subscriptions.subscribe("b", 0);
        RefreshRequest first = machine.begin(0, subscriptions.names(), true);
        assertEquals(true, first.isFull());
        assertSame(subscriptions.names().stableCopy(), first.topics());
        machine.onSuccess(first, true, 0);
        machine.requestFull("test");
        RefreshRequest again = machine.begin(1, subscriptions.names(), true);
        assertSame(first.topics(), again.topics(), "nothing subscribed since: the same set");
        machine.onSuccess(again, true, 1);

        machine.addNew("n", true);
        RefreshRequest partial = machine.begin(2, subscriptions.names(), true);
        assertEquals(false, partial.isFull());
        assertEquals(Set.of("n"), partial.topics());
        assertThrows(UnsupportedOperationException.class, () -> partial.topics().add("x"));
    }
}
