package dev.kmeta.metadata.internal;

import dev.kmeta.faketime.FakeTicker;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.TooManyTopicsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import java.time.Duration;

/**
 * The Dubbo incident's shape: a registry bug makes an application ask for 10^6 distinct topic names. With the default
 * cap ({@code kmeta.metadata.max.topics}, 100,000) the manager must hold at most the cap's worth of entries, fail the
 * excess at once with an error naming the key, and never put a rejected name in a request.
 *
 * <p>The sender is played by this thread every 10,000 names (poll, beginRefresh, an answer saying every requested
 * topic is unknown), so the names flow into requests as they would in production.
 *
 * <p>2.5 x 10^5 names by default ({@code -Dkmeta.subscription.names=1000000} for the incident's count): the cap is
 * reached at 10^5 either way, and the 150,000 names beyond it take the rejecting path as the 900,000 did; each sender
 * round past the cap re-sends the 10^5 subscribed names, which made the million ~18 s of the suite.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SubscriptionBoundTest {
    private static final int NAMES = Integer.getInteger("kmeta.subscription.names", 250_000);
    private static final String PREFIX = "registry-";
    /**
     * Retained heap allowed per subscribed topic. What one holds: its {@link TopicEntry} with a wait queue, two atomics
     * and the table's node (~200 B), its name (~60 B), its place in the state machine's pending set and in the
     * request the sender keeps (~100 B): ~400 B. 1 KB leaves room for GC measurement noise and other JVMs' layouts,
     * and is still well under what holding every name would cost (10^6 names x ~400 B = 400 MB, against the
     * bound's 100 MB).
     */
    private static final long BYTES_PER_ENTRY_BOUND = 1024;
    /** A floor that shows the measurement sees the entries at all: the names alone take more. */
    private static final long BYTES_PER_ENTRY_FLOOR = 64;

    @Test
    void namesFarBeyondTheCapStayWithinItFailFastAndAreNeverSent() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long baseline = usedAfterGc(memory);
        long startNs = System.nanoTime();

        FakeTicker ticker = new FakeTicker();
        MetadataConfig config = MetadataConfig.from(Map.of("client.id", "dubbo"));
        int cap = config.maxTopics();
        MetadataManager manager = new MetadataManager(config, ticker);
        Deadline zero = Deadline.after(Duration.ZERO, ticker);
        int rejected = 0;
        BitSet requested = new BitSet();
        for (int i = 0; i < NAMES; i++) {
            String name = PREFIX + i;
            try {
                manager.awaitTopic(name, zero);
                fail("awaitTopic(" + name + ") returned without an answer");
            } catch (MetadataTimeoutException e) {
                assertTrue(i < cap, name + " was taken beyond the cap of " + cap);
            } catch (TooManyTopicsException e) {
                assertTrue(i >= cap, name + " rejected below the cap: " + e.getMessage());
                if (rejected++ % 100_000 == 0) {
                    assertMessage(e, name, cap);
                }
            }
            if (i % 10_000 == 9_999) {
                senderRound(manager, ticker, cap, requested);
            }
        }
        senderRound(manager, ticker, cap, requested);
        long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;

        assertEquals(NAMES - cap, rejected, "names rejected");
        assertEquals(NAMES - cap, manager.counters().topicsRejectedByCap());
        assertEquals(cap, manager.subscribedTopics().size(), "subscribed topics");
        assertEquals(cap, requested.cardinality(), "every accepted name asked for");
        assertEquals(0, manager.counters().waitersNow(), "no thread left in a wait");

        // A rejected name fails fast even with a long budget: it never parks (this thread would hang until @Timeout).
        TooManyTopicsException e = assertThrows(TooManyTopicsException.class,
                () -> manager.awaitTopic(PREFIX + NAMES, Deadline.after(Duration.ofMillis(TimeUnit.HOURS.toMillis(1)), ticker)));
        assertMessage(e, PREFIX + NAMES, cap);

        long retained = usedAfterGc(memory) - baseline;
        Reference.reachabilityFence(manager);
        System.out.printf("SubscriptionBoundTest: %d names in %d ms, %d subscribed, %d rejected, retained %d KB "
                + "(%d B per subscribed topic)%n", NAMES, elapsedMs, cap, rejected, retained / 1024, retained / cap);
        assertTrue(retained <= cap * BYTES_PER_ENTRY_BOUND, "retained " + retained + " B for " + cap
                + " subscribed topics, more than " + BYTES_PER_ENTRY_BOUND + " B each");
        assertTrue(retained >= cap * BYTES_PER_ENTRY_FLOOR, "retained " + retained + " B: the measurement does not "
                + "see the " + cap + " entries");
    }

    private static void assertMessage(TooManyTopicsException e, String name, int cap) {
        String m = e.getMessage();
        assertTrue(m.contains("kmeta.metadata.max.topics") && m.contains(name) && m.contains(String.valueOf(cap)),
                "the message names the key, the topic and the limit: " + m);
    }

    /**
     * One sender round: poll, send what is due, answer every requested topic UNKNOWN_TOPIC_OR_PARTITION. Records
     * the names the request carried; fails if one of them was rejected (an index at or beyond the cap).
     */
    private static void senderRound(MetadataManager manager, FakeTicker ticker, int cap, BitSet requested) {
        ticker.advanceMs(2_000); // past any backoff
        manager.poll(ticker.nowMs());
        RefreshRequest r = manager.beginRefresh(ticker.nowMs());
        if (r == null) {
            return;
        }
        Map<String, TopicMetadata> unknown = new LinkedHashMap<>();
        for (String name : r.topics()) {
            int index = Integer.parseInt(name.substring(PREFIX.length()));
            assertTrue(index < cap, "the request " + r + " carries " + name + ", a name the cap rejected");
            requested.set(index);
            unknown.put(name, TopicMetadata.of(name, null, false, (short) 3, List.of()));
        }
        manager.onResponse(r, new RefreshResponse("c", 0, List.of(new Node(0, "127.0.0.1", 9092)), unknown, true,
                (short) 0), ticker.nowMs());
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            memory.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
