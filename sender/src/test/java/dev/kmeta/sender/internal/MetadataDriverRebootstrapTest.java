package dev.kmeta.sender.internal;

import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rebootstrap trigger of {@link MetadataDriver} ({@code metadata.recovery.rebootstrap.trigger.ms}: metadata
 * wanted that long without an answer sends the sender back to {@code bootstrap.servers}), on a
 * {@link FakeKafkaClient} and fake time: a learned broker that accepts connections but never answers, so that every
 * request fails (times out, or the broker drops the connection) and is retried after backoff. The backoff counts
 * from the start of the failed request, so it is still running when the failure arrives only if the failure came
 * quicker than the backoff: hence a request timeout shorter than the backoffs here.
 */
class MetadataDriverRebootstrapTest {
    private static final long TRIGGER_MS = 3_000;
    private static final int REQUEST_TIMEOUT_MS = 200;
    /** The longest poll {@link MetadataDriver#step} asks for: the client checks for a rebootstrap at least as often. */
    private static final long MAX_POLL_MS = 1_000;

    private final FakeKafkaClient client = new FakeKafkaClient().rebootstrapTriggerMs(TRIGGER_MS);
    private final MetadataConfig config = MetadataConfig.from(Map.of(
            "bootstrap.servers", "boot.test:9092",
            "client.id", "driver-test",
            "request.timeout.ms", REQUEST_TIMEOUT_MS,
            "retry.backoff.ms", 500,
            "retry.backoff.max.ms", 1_000,
            "metadata.recovery.rebootstrap.trigger.ms", TRIGGER_MS,
            "kmeta.metadata.jitter", 0));
    private final MetadataManager manager = new MetadataManager(config, client::nanoTime);
    private final MetadataDriver driver = new MetadataDriver(manager, config, new RecordingResolver(host -> {
        throw new UnknownHostException(host); // never asked: the fake client resolves nothing
    }), manager.connections());

    MetadataDriverRebootstrapTest() {
        client.updater(driver.nodeProvider());
        driver.attach(client);
    }

    @Test
    void requestsThatTimeOutAndWaitOutTheirBackoffStillCountAsWantedAndTriggerTheRebootstrap() {
        client.answers(id -> id.startsWith("-") ? answer() : null); // broker 1 accepts connections, never answers
        unansweredRequestsToBroker1TriggerTheRebootstrap();
    }

    @Test
    void requestsWhoseConnectionDropsAndWaitOutTheirBackoffStillCountAsWantedAndTriggerTheRebootstrap() {
        client.answers(id -> id.startsWith("-") ? answer() : null);
        client.drops(id -> true); // broker 1 accepts connections and closes them on the first request
        unansweredRequestsToBroker1TriggerTheRebootstrap();
    }

    private void unansweredRequestsToBroker1TriggerTheRebootstrap() {
        learnBroker1FromTheBootstrap();
        runUntil(() -> false, 2 * TRIGGER_MS); // nothing wanted meanwhile: idle time is no time without an answer
        assertEquals(0, driver.rebootstraps(), "idle");

        long wantedFromMs = client.nowMs();
        manager.requestUpdate();
        runUntil(() -> driver.rebootstraps() > 0, 10 * TRIGGER_MS);

        assertEquals(1, driver.rebootstraps(), "rebootstraps after " + (client.nowMs() - wantedFromMs)
                + " ms of requests to broker 1 that all failed; sent to " + client.sentTo());
        assertTrue(client.unanswered() >= 3, "the clock ran through failures and backoffs: " + client.unanswered());
        long elapsedMs = client.nowMs() - wantedFromMs;
        assertTrue(elapsedMs >= TRIGGER_MS && elapsedMs <= TRIGGER_MS + MAX_POLL_MS,
                "rebootstrap " + elapsedMs + " ms after the refresh was first wanted; trigger " + TRIGGER_MS);
        assertEquals(List.of("-1"), ids(driver.nodeProvider().fetchNodes()), "back on the bootstrap address");

        runUntil(() -> manager.connections().get("-1").answers() == 2, 10_000);
        assertEquals("-1", client.sentTo().get(client.sentTo().size() - 1), "the next request went to the bootstrap");
        assertEquals(2, manager.connections().get("-1").answers(), "the bootstrap answered again");
        assertEquals(List.of("1"), ids(driver.nodeProvider().fetchNodes()), "and broker 1 is learned again");
    }

    @Test
    void answersBetweenTimeOutsRestartTheClockSoNoRebootstrap() {
        int[] brokerRequests = {0};
        client.answers(id -> id.startsWith("-") || brokerRequests[0]++ % 2 == 1 ? answer() : null);
        learnBroker1FromTheBootstrap();

        runUntil(() -> {
            if (manager.state() == RefreshState.STABLE) {
                manager.requestUpdate(); // a busy application: a refresh is always wanted
            }
            return false;
        }, 10 * TRIGGER_MS);

        assertTrue(client.unanswered() >= 5, "time-outs: " + client.unanswered());
        assertTrue(manager.connections().get("1").answers() >= 5, "answers: " + manager.connections().get("1"));
        assertEquals(0, driver.rebootstraps(), "never " + TRIGGER_MS + " ms without an answer: no rebootstrap");
    }

    /**
     * KIP-1242 refusals (a broker answering ApiVersions with REBOOTSTRAP_REQUIRED) while a rebootstrap is still
     * unanswered are recorded, not rebootstrapped on again: each rebootstrap drops the bootstrap connections and would
     * cut the request that is to end it (the leader probe's refusals kept a client rebootstrapping 285 times in 20 s
     * without an answer, OtherClustersMatrixTest). Once the bootstrap answered, a refusal rebootstraps again. A refusal
     * is handled at the driver's next step, outside the client's poll that reported it.
     */
    @Test
    void refusalsDuringAnUnansweredRebootstrapDoNotRebootstrapAgain() {
        client.answers(id -> answer());
        learnBroker1FromTheBootstrap();

        driver.nodeProvider().rebootstrap(client.nowMs()); // a refusal: kafka-clients calls this without the trigger
        assertEquals(0, driver.rebootstraps(), "inside the client's poll: nothing done yet");
        driver.step(client.nowMs()); // the next step, outside the poll
        assertEquals(1, driver.rebootstraps());
        assertEquals(List.of("-1"), ids(driver.nodeProvider().fetchNodes()), "back on the bootstrap address");
        driver.nodeProvider().rebootstrap(client.nowMs()); // two more before the bootstrap answered
        driver.nodeProvider().rebootstrap(client.nowMs());
        driver.step(client.nowMs());
        assertEquals(1, driver.rebootstraps(), "folded into the rebootstrap under way");
        assertEquals(3, driver.misroutedConnections(), "each refusal counted");

        runUntil(() -> ids(driver.nodeProvider().fetchNodes()).equals(List.of("1")), 10_000);
        driver.nodeProvider().rebootstrap(client.nowMs());
        driver.step(client.nowMs());
        assertEquals(2, driver.rebootstraps(), "after an answer, a refusal rebootstraps");
    }

    private void learnBroker1FromTheBootstrap() {
        runUntil(() -> !manager.fetch().nodes().isEmpty(), 10_000);
        assertEquals(List.of("-1"), client.sentTo(), "the first request goes to the bootstrap address");
        assertEquals(List.of("1"), ids(driver.nodeProvider().fetchNodes()), "broker 1 learned");
    }

    private void runUntil(BooleanSupplier done, long fakeMs) {
        DriverSteps.runUntil(client, driver, done, fakeMs);
    }

    /** A v13 answer: broker 1 at broker1.test:9092, no topics. */
    private static MetadataResponse answer() {
        return MetadataAnswers.cluster("fake-cluster").broker(1, "broker1.test", 9092).response();
    }

    private static List<String> ids(List<Node> nodes) {
        return nodes.stream().map(Node::idString).toList();
    }
}
