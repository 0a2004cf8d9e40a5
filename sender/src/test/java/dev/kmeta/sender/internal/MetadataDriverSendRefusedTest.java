package dev.kmeta.sender.internal;

import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MetadataDriver} when the client's {@code send} throws after the node was ready (as kafka-clients'
 * {@code NetworkClient} does when it is closing, or for a node it no longer considers ready): the request fails like a
 * lost one, the manager leaves IN_FLIGHT and retries after backoff, the step never throws, and the run of refusals is
 * logged at WARN once. On a {@link FakeKafkaClient} and fake time; the test thread is the sender thread.
 */
class MetadataDriverSendRefusedTest {
    private static final long BACKOFF_MS = 100;
    private static final int REFUSALS = 3;

    private final FakeKafkaClient client = new FakeKafkaClient().rebootstrapTriggerMs(Long.MAX_VALUE);
    private final MetadataConfig config = MetadataConfig.from(Map.of(
            "bootstrap.servers", "boot.test:9092",
            "client.id", "refused-test",
            "retry.backoff.ms", BACKOFF_MS,
            "retry.backoff.max.ms", 1_000,
            "kmeta.metadata.jitter", 0));
    private final MetadataManager manager = new MetadataManager(config, client::nanoTime);
    private final MetadataDriver driver = new MetadataDriver(manager, config, new RecordingResolver(host -> {
        throw new UnknownHostException(host); // never asked: the fake client resolves nothing
    }), manager.connections());

    MetadataDriverSendRefusedTest() {
        client.updater(driver.nodeProvider());
        driver.attach(client);
    }

    @Test
    void aSendThatThrowsFailsTheRequestWhichIsRetriedAfterBackoffAndAnswered() {
        client.answers(id -> answer());
        int[] calls = {0};
        client.refuses(id -> calls[0]++ < REFUSALS
                ? new IllegalStateException("simulated: NetworkClient is no longer active") : null);

        String log = capturingStderr(() -> runUntil(() -> !manager.fetch().nodes().isEmpty(), 10_000));

        assertEquals(REFUSALS + 1, client.sendCallsAtMs().size(), "3 refused sends, then one that went out");
        assertEquals(List.of("-1"), client.sentTo(), "the fourth send went out and was answered");
        assertEquals(1, manager.fetch().nodes().size(), "the answer was applied: " + manager.fetch());
        assertEquals(REFUSALS, manager.counters().requestsFailed(), "each refused send is a failed request");
        assertNull(manager.inFlight(), "not left IN_FLIGHT");
        assertEquals(RefreshState.STABLE, manager.state());
        for (int i = 1; i < client.sendCallsAtMs().size(); i++) {
            long gapMs = client.sendCallsAtMs().get(i) - client.sendCallsAtMs().get(i - 1);
            long backoffMs = BACKOFF_MS << (i - 1); // 100, 200, 400: doubling, no jitter
            assertTrue(gapMs >= backoffMs, "send " + i + " came " + gapMs + " ms after the refused one, before the "
                    + backoffMs + " ms backoff; sends at " + client.sendCallsAtMs());
        }
        List<String> warnings = log.lines().filter(l -> l.contains("WARN")).toList();
        assertEquals(1, warnings.size(), "one WARN for the run of refusals:\n" + log);
        assertTrue(warnings.get(0).contains("[refused-test] the client could not send the metadata request to"
                + " bootstrap boot.test:9092: java.lang.IllegalStateException: simulated: NetworkClient is no longer"
                + " active; retrying after backoff"), warnings.get(0));
    }

    @Test
    void aNewRunOfRefusalsAfterASuccessfulSendIsLoggedAgain() {
        client.answers(id -> answer());
        client.refuses(id -> new IllegalStateException("first run"));
        String firstRun = capturingStderr(() -> runUntil(() -> manager.counters().requestsFailed() == 2, 10_000));
        client.refuses(id -> null);
        runUntil(() -> !manager.fetch().nodes().isEmpty(), 10_000);
        manager.requestUpdate();
        client.refuses(id -> new IllegalStateException("second run"));

        String secondRun = capturingStderr(() -> runUntil(() -> manager.counters().requestsFailed() == 4, 10_000));

        assertEquals(1, firstRun.lines().filter(l -> l.contains("WARN") && l.contains("first run")).count(), firstRun);
        assertEquals(1, secondRun.lines().filter(l -> l.contains("WARN") && l.contains("second run")).count(),
                secondRun);
    }

    /** The sender loop ({@link SenderLoop#run}) on fake time, until {@code done} or {@code fakeMs} have passed. */
    private void runUntil(BooleanSupplier done, long fakeMs) {
        long endMs = client.nowMs() + fakeMs;
        for (int i = 0; i < 100_000 && !done.getAsBoolean() && client.nowMs() < endMs; i++) {
            client.poll(driver.step(client.nowMs()), client.nowMs());
        }
        assertTrue(done.getAsBoolean(), "not done after " + fakeMs + " fake ms; state " + manager.state()
                + ", failed requests " + manager.counters().requestsFailed() + ", sends at " + client.sendCallsAtMs());
    }

    /** What slf4j-simple (which looks {@code System.err} up at each line) wrote while {@code body} ran. */
    private static String capturingStderr(Runnable body) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setErr(saved);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }

    /** A v13 answer: broker 1 at broker1.test:9092, no topics. */
    private static MetadataResponse answer() {
        return MetadataAnswers.cluster("fake-cluster").broker(1, "broker1.test", 9092).response();
    }
}
