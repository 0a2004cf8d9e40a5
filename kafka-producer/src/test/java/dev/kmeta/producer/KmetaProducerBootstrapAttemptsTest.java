package dev.kmeta.producer;

import dev.kmeta.testkit.LogCapture;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.kmeta.producer.ProducerIt.bridge;
import static dev.kmeta.testkit.TestClients.producerProps;
import static dev.kmeta.testkit.TestClients.report;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 28: before kmeta's first answer the producer's own network client connects nowhere. kmeta's thread tries the
 * bootstrap address; the producer's network thread (an idempotent producer's InitProducerId goes to any broker) waits
 * for kmeta's answer instead of trying the same address itself, so a bad address is tried once per backoff and each
 * failure is logged once (by kmeta's client, one line, no stack trace), not a second time under the producer's name.
 * Loopback only; a name that does not resolve goes through kmeta's DNS hook.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KmetaProducerBootstrapAttemptsTest {
    private static final long BACKOFF_MS = 1_000;
    private static final long MAX_BLOCK_MS = 2_500;

    /** A loopback listener that accepts each connection and closes it at once (no Kafka answer), counting them. */
    private static final class AcceptAndClose implements AutoCloseable {
        final ServerSocket server;
        final AtomicInteger accepted = new AtomicInteger();
        private final Thread thread;

        AcceptAndClose() throws Exception {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            thread = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        accepted.incrementAndGet();
                    } catch (Exception e) {
                        return;
                    }
                }
            }, "accept-and-close");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws Exception {
            server.close();
            thread.join(5_000);
        }
    }

    private static Map<String, Object> slowBackoff(String bootstrap) {
        Map<String, Object> p = producerProps(bootstrap);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, BACKOFF_MS);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, BACKOFF_MS);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        return p;
    }

    private static void sendFails(Producer<String, String> producer) {
        Future<?> f = producer.send(new ProducerRecord<>("orders", "v"));
        assertThrows(ExecutionException.class, () -> f.get(MAX_BLOCK_MS + 5_000, TimeUnit.MILLISECONDS));
    }

    /** NetworkClient's lines logged under the producer's name (its own network client), not kmeta's. */
    private static long producerClientLines(String text, String clientId) {
        return text.lines().filter(l -> l.contains("[Producer clientId=" + clientId + "]")
                && l.contains("org.apache.kafka.clients.NetworkClient")).count();
    }

    @Test
    void aBootstrapThatAnswersNothingIsTriedOncePerBackoffByKmetaAlone() throws Exception {
        try (AcceptAndClose server = new AcceptAndClose();
             LogCapture logs = LogCapture.at("info", "org.apache.kafka.clients.NetworkClient")) {
            Map<String, Object> p = slowBackoff("127.0.0.1:" + server.server.getLocalPort());
            String clientId = (String) p.get(ProducerConfig.CLIENT_ID_CONFIG);
            long start = System.nanoTime();
            int attempts;
            long windowMs;
            String text;
            try (Producer<String, String> producer = KmetaProducer.create(p)) {
                sendFails(producer); // max.block.ms after the send, no broker ever answered
                attempts = server.accepted.get();
                windowMs = (System.nanoTime() - start) / 1_000_000;
                text = logs.text();
                assertTrue(bridge(producer).firstAnswerWaits() >= 1, "the network thread waited for kmeta");
            }
            // Closing, the producer's network thread stops waiting and finishes its InitProducerId attempt: one
            // connection of its own at most (the documented limit), after the window checked above.
            int atClose = server.accepted.get() - attempts;
            report("bootstrap answering nothing: %d connections in %d ms (backoff %d ms); producer-client log lines %d;"
                    + " %d more at close", attempts, windowMs, BACKOFF_MS, producerClientLines(text, clientId),
                    atClose);
            assertTrue(atClose <= 2, atClose + " connections at close");
            // kmeta alone: one at start, then one per backoff (+-20% jitter); both clients: about twice that
            long kmetaAlone = windowMs / (BACKOFF_MS * 8 / 10) + 1;
            assertTrue(attempts <= kmetaAlone, attempts + " connections in " + windowMs + " ms, kmeta alone makes at most "
                    + kmetaAlone + "\n" + text);
            assertEquals(0, producerClientLines(text, clientId), "nothing logged by the producer's own client:\n"
                    + text);
            assertEquals(0, text.lines().filter(l -> l.startsWith("\tat ")).count(), "no stack trace:\n" + text);
        }
    }

    @Test
    void aBootstrapNameThatDoesNotResolveIsLookedUpAndLoggedByKmetaAlone() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        try (LogCapture logs = LogCapture.at("info", "org.apache.kafka.clients.NetworkClient")) {
            Map<String, Object> p = slowBackoff("kafka.does-not-resolve.test:9092");
            // a bound past the test: unset or 0, create fails as stock's constructor does (issue 39)
            p.put("bootstrap.resolve.timeout.ms", 600_000);
            String clientId = (String) p.get(ProducerConfig.CLIENT_ID_CONFIG);
            String text;
            try (Producer<String, String> producer = KmetaProducer.builder(p).hostResolver(host -> {
                lookups.incrementAndGet();
                throw new UnknownHostException(host + ": no such name (test hook)");
            }).build()) {
                sendFails(producer);
                text = logs.text(); // before close (see the test above)
                assertTrue(bridge(producer).firstAnswerWaits() >= 1, "the network thread waited for kmeta");
            }
            report("bootstrap name not resolving: %d lookups through kmeta's hook; producer-client log lines %d",
                    lookups.get(), producerClientLines(text, clientId));
            assertTrue(lookups.get() > 0, "kmeta resolved through the hook");
            assertEquals(0, producerClientLines(text, clientId), "the producer's own client never tried it:\n"
                    + text);
            assertEquals(0, text.lines().filter(l -> l.startsWith("\tat ")).count(), "no stack trace:\n" + text);
        }
    }
}
