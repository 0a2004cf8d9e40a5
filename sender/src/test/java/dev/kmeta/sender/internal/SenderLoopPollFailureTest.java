package dev.kmeta.sender.internal;

import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.testkit.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.UnknownHostException;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link SenderLoop} reports a poll that threw: kafka-clients 4.4's known throw after a KIP-1242 refusal (it
 * closes the node list's connections inside its receive loop, then finds no request for a receive: "There are no
 * in-flight requests for node -1", recovered by {@code MetadataRequests.failIfLost}) is a WARN without a trace, once;
 * anything else - or that throw with no refusal in the poll - stays an ERROR with its trace. A real loop and
 * NetworkClient that never polls (nothing connects).
 */
class SenderLoopPollFailureTest {
    private static final String LOST = "There are no in-flight requests for node -1";

    private final MetadataConfig config = MetadataConfig.from(Map.of(
            "bootstrap.servers", "localhost:9",
            "client.id", "poll-failure-test"));
    private final MetadataManager manager = new MetadataManager(config, System::nanoTime);
    private final SenderLoop loop = new SenderLoop(manager, config, new RecordingResolver(host -> {
        throw new UnknownHostException(host);
    }), manager.connections());

    @AfterEach
    void close() {
        manager.close();
        loop.run(); // closed: closes the client at once
    }

    @Test
    void theKnownThrowAfterAnIdentityRefusalIsOneWarningWithoutATrace() {
        try (LogCapture log = LogCapture.at("debug", "dev.kmeta")) {
            loop.driver().identityRefused(0);
            loop.pollFailed(new IllegalStateException(LOST));
            loop.pollFailed(new IllegalStateException(LOST));

            String text = log.text();
            assertFalse(text.contains("ERROR"), text);
            assertFalse(text.contains("\tat "), "no stack trace: " + text);
            assertEquals(1, count(text, "WARN"), text);
            assertTrue(text.contains("identity refusal (KIP-1242) closed connections inside it (" + LOST + ")"), text);
        }
    }

    @Test
    void theSameThrowWithoutARefusalIsAnErrorWithItsTrace() {
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta")) {
            loop.pollFailed(new IllegalStateException(LOST));

            String text = log.text();
            assertTrue(text.contains("ERROR") && text.contains("network poll failed; going on"), text);
            assertTrue(text.contains("\tat "), "with its trace: " + text);
        }
    }

    @Test
    void anyOtherThrowAfterARefusalIsAnError() {
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta")) {
            loop.driver().identityRefused(0);
            loop.pollFailed(new IllegalStateException("something else"));

            assertTrue(log.text().contains("ERROR"), log.text());
        }
    }

    private static int count(String text, String word) {
        return text.split(word, -1).length - 1;
    }
}
