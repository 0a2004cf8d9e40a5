package dev.kmeta.sender.internal;

import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.LogCapture;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

import java.net.UnknownHostException;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Metadata request the client loses - never completes, as kafka-clients' {@code NetworkClient} when its poll throws
 * after it cancelled the request (4.4 closes the node list's connections inside its receive loop on a KIP-1242
 * refusal; OtherClustersMatrixTest saw "There are no in-flight requests for node -3" and kmeta IN_FLIGHT for good) -
 * fails at {@link MetadataDriver}'s second step without it and is asked again; a request the client merely cancelled,
 * whose completion it queues for its next poll, is not taken for lost. On a {@link FakeKafkaClient} and fake time.
 */
class MetadataDriverLostRequestTest {
    private static final int REQUEST_TIMEOUT_MS = 2_000;
    private static final long ANSWER_DELAY_MS = 1_500;

    private final FakeKafkaClient client = new FakeKafkaClient().answerDelayMs(ANSWER_DELAY_MS);
    private final MetadataConfig config = MetadataConfig.from(Map.of(
            "bootstrap.servers", "boot.test:9092",
            "client.id", "lost-request-test",
            "request.timeout.ms", REQUEST_TIMEOUT_MS,
            "retry.backoff.ms", 100,
            "retry.backoff.max.ms", 100,
            "kmeta.metadata.jitter", 0));
    private final MetadataManager manager = new MetadataManager(config, client::nanoTime);
    private final MetadataDriver driver = new MetadataDriver(manager, config, new RecordingResolver(host -> {
        throw new UnknownHostException(host); // never asked: the fake client resolves nothing
    }), manager.connections());

    MetadataDriverLostRequestTest() {
        client.updater(driver.nodeProvider());
        driver.attach(client);
        client.answers(id -> answer());
    }

    @Test
    void aRequestTheClientLosesFailsAtTheNextStepsAndIsAskedAgain() {
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta")) {
            requestInFlight();
            client.loseMetadataRequests("-1");

            runUntil(() -> !manager.fetch().nodes().isEmpty(), 10_000);

            assertEquals(RefreshState.STABLE, manager.state(), "answered after the retry");
            assertEquals(1, manager.counters().requestsFailed(), "the lost request failed once");
            assertEquals(2, client.metadataRequestsSent(), "and was asked again");
            assertTrue(log.text().contains("the client lost the metadata request to bootstrap boot.test:9092 (its "
                    + "poll failed)"), log.text());
        }
    }

    @Test
    void aRequestTheClientCancelledIsNotTakenForLost() {
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta")) {
            requestInFlight();
            client.disconnect("-1"); // cancelled: the client completes it (disconnected) at its next poll

            runUntil(() -> !manager.fetch().nodes().isEmpty(), 10_000);

            assertEquals(RefreshState.STABLE, manager.state());
            assertEquals(1, manager.counters().requestsFailed(), "failed by its completion");
            assertFalse(log.text().contains("lost the metadata request"), log.text());
        }
    }

    /** Another request on the same connection hides the lost one from the client: twice the timeout ends it. */
    @Test
    void aLostRequestHiddenByAnotherOnItsConnectionFailsAfterTwiceTheRequestTimeout() {
        client.allConnected().otherAnswers(r -> new FakeKafkaClient.Reply(null, 100_000));
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta")) {
            requestInFlight();
            long lostAtMs = client.nowMs();
            client.loseMetadataRequests("-1");
            ClientRequest other = client.newClientRequest("-1", new ApiVersionsRequest.Builder(), lostAtMs, true,
                    100_000, response -> { });
            client.send(other, lostAtMs);

            runUntil(() -> manager.counters().requestsFailed() > 0, 10 * REQUEST_TIMEOUT_MS);

            assertEquals(1, manager.counters().requestsFailed(), "the lost request failed");
            long failedAfterMs = client.nowMs() - lostAtMs;
            assertTrue(failedAfterMs >= 2 * REQUEST_TIMEOUT_MS - ANSWER_DELAY_MS
                    && failedAfterMs <= 2 * REQUEST_TIMEOUT_MS + MetadataDriver.MAX_POLL_MS, "failed "
                    + failedAfterMs + " ms after it was lost");
            assertTrue(log.text().contains("no completion within twice request.timeout.ms=" + REQUEST_TIMEOUT_MS),
                    log.text());
            runUntil(() -> !manager.fetch().nodes().isEmpty(), 10_000);
            assertEquals(2, client.metadataRequestsSent(), "and was asked again");
        }
    }

    /** A refresh wanted, run until its request is out (answered only after {@link #ANSWER_DELAY_MS}). */
    private void requestInFlight() {
        manager.requestUpdate();
        runUntil(() -> client.metadataRequestsSent() == 1, 10_000);
        assertEquals(1, client.metadataRequestsSent());
        assertEquals(RefreshState.IN_FLIGHT, manager.state());
    }

    private void runUntil(BooleanSupplier done, long fakeMs) {
        DriverSteps.runUntil(client, driver, done, fakeMs);
    }

    private static MetadataResponse answer() {
        return MetadataAnswers.cluster("fake-cluster").broker(1, "broker1.test", 9092).response();
    }
}
