package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.Diagnosis.Cause;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link LeaderProbe} inside {@link MetadataDriver}, on a {@link FakeKafkaClient} and fake time: the sender asks
 * its metadata of one node, yet the leaders it never talked to are tried, once per reconnect backoff, and what they
 * did is in the evidence - so a partition whose leader's advertised address refuses is diagnosed as such, while the
 * bootstrap answers.
 */
class LeaderProbeTest {
    private static final long BACKOFF_MS = 100;

    private final FakeKafkaClient client = new FakeKafkaClient().rebootstrapTriggerMs(Long.MAX_VALUE);
    private final MetadataConfig config = MetadataConfig.from(Map.of("bootstrap.servers", "boot.test:9092",
            "client.id", "probe-test", "kmeta.metadata.jitter", 0));
    private final MetadataManager manager = new MetadataManager(config, client::nanoTime);
    private final MetadataDriver driver = new MetadataDriver(manager, config, new RecordingResolver(host -> {
        throw new UnknownHostException(host); // never asked: the fake client resolves nothing
    }), manager.connections());

    LeaderProbeTest() {
        client.updater(driver.nodeProvider());
        client.reconnectBackoffMs(BACKOFF_MS);
        driver.attach(client);
    }

    @Test
    void aLeaderWhoseAdvertisedAddressRefusesIsTriedOncePerBackoffAndDiagnosed() {
        client.answers(id -> answer());
        client.refusesConnections("2"::equals); // broker 2 advertises an address nothing listens on
        manager.subscribe("orders");
        runUntil(() -> manager.fetch().partitionCount("orders") == 2, 10_000);
        long startMs = client.nowMs();
        runUntil(() -> false, 2_000);

        ConnectionEvidence.Record two = manager.connections().broker(2);
        ConnectionEvidence.Record one = manager.connections().broker(1);
        int started = client.connectionsStarted().getOrDefault("2", 0);
        assertTrue(started >= 2 && started <= 2_000 / BACKOFF_MS + 2, "attempts to broker 2 in "
                + (client.nowMs() - startMs) + " ms: " + started);
        assertEquals(started, two.attempts(), "every attempt counted: " + two);
        assertFalse(two.everConnected());
        assertEquals(ConnectionEvidence.Problem.CONNECT_FAILED, two.lastProblem());
        assertTrue(one.everConnected() && !one.failingNow(), "broker 1 works: " + one);
        assertEquals(List.of("-1"), client.sentTo().subList(0, 1), "the metadata came from the bootstrap");

        Diagnosis d = manager.diagnosePartition("orders", 1);
        assertEquals(Cause.ADVERTISED_LISTENER_UNREACHABLE, d.cause(), d.message());
        assertTrue(d.seen().startsWith("broker 2 advertises broker2.test:9094, unreachable from here"), d.seen());
        assertNull(manager.diagnosePartition("orders", 0), "broker 1 leads partition 0 and is fine");

        // The address is fixed: the next probe connects and the partition is fine again.
        client.refusesConnections(id -> false);
        runUntil(() -> manager.connections().broker(2).everConnected(), 1_000);
        assertNull(manager.diagnosePartition("orders", 1));
        int afterFix = client.connectionsStarted().get("2");
        runUntil(() -> false, 2_000);
        assertEquals(afterFix, client.connectionsStarted().get("2"), "a proven leader is not probed again");
    }

    @Test
    void aTopicWithoutPartitionsOrLeadersProbesNothing() {
        client.answers(id -> answer());
        runUntil(() -> !manager.fetch().nodes().isEmpty(), 10_000); // no topic asked: no leader in the snapshot
        runUntil(() -> false, 1_000);
        assertEquals(Map.of("-1", 1), client.connectionsStarted(), "only the bootstrap connection");
        assertEquals(0, driver.leaderProbes());
    }

    /**
     * Issue 28: a fresh producer's first send waits for the probe's first attempt to the leaders the first answer
     * named; that attempt is made in the step that follows the answer, not a scan interval after the instance's
     * first (empty) scan.
     */
    @Test
    void theLeadersAFirstAnswerNamesAreProbedInTheStepRightAfterIt() {
        client.answers(id -> answer());
        long startMs = client.nowMs();
        manager.subscribe("orders");
        runUntil(() -> manager.fetch().partitionCount("orders") == 2, 10_000);
        long answeredMs = client.nowMs();
        assertTrue(answeredMs - startMs < LeaderProbe.SCAN_INTERVAL_MS, "the answer came within the first scan "
                + "interval: " + (answeredMs - startMs) + " ms");

        driver.step(client.nowMs());

        assertEquals(answeredMs, client.nowMs(), "no fake time passed");
        assertEquals(1, client.connectionsStarted().getOrDefault("1", 0), "broker 1 tried at once: "
                + client.connectionsStarted());
        assertEquals(1, client.connectionsStarted().getOrDefault("2", 0), "broker 2 tried at once: "
                + client.connectionsStarted());
    }

    /**
     * Issue 28: a broker advertised at the address that just answered (bootstrap = the broker's own address) is
     * proven by that answer: its evidence says connected as soon as the snapshot names it, and it is not probed.
     */
    @Test
    void aBrokerAdvertisedAtTheAddressThatAnsweredIsProvenByTheAnswer() {
        client.answers(id -> answer("boot.test", 9092));
        manager.subscribe("orders");
        runUntil(() -> manager.fetch().partitionCount("orders") == 2, 10_000);

        ConnectionEvidence.Record one = manager.connections().broker(1);
        assertTrue(one != null && one.everConnected() && !one.failingNow(), "broker 1 answered as boot.test:9092: "
                + one);
        runUntil(() -> false, 1_000);
        assertFalse(client.connectionsStarted().containsKey("1"), "broker 1 not probed: "
                + client.connectionsStarted());
        assertEquals(1, client.connectionsStarted().getOrDefault("2", 0), "broker 2 (elsewhere) is: "
                + client.connectionsStarted());
    }

    private void runUntil(BooleanSupplier done, long fakeMs) {
        DriverSteps.runUntil(client, driver, done, fakeMs);
    }

    /** A v13 answer: brokers 1 and 2; topic orders with partition 0 led by 1 and partition 1 led by 2. */
    private static MetadataResponse answer() {
        return answer("broker1.test", 9093);
    }

    /** {@link #answer()} with broker 1 advertised at {@code host1:port1}. */
    private static MetadataResponse answer(String host1, int port1) {
        Uuid orders = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
        return MetadataAnswers.cluster("fake-cluster").broker(1, host1, port1).broker(2, "broker2.test", 9094)
                .partition("orders", orders, 0, 1, 1, 1, 2).partition("orders", orders, 1, 2, 1, 1, 2).response();
    }
}
