package dev.kmeta.sender;

import dev.kmeta.testkit.LogCapture;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.Ticker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * KIP-909's {@code bootstrap.resolve.timeout.ms}: with every bootstrap name failing to resolve (fake names through the
 * {@link HostResolverHook}, never the system resolver), the instance reports BOOTSTRAP_DNS once the bound has passed
 * on its own clock - without a send - and clears it when a name resolves; a send still fails as BOOTSTRAP_DNS within
 * its budget. No broker is needed: nothing ever connects.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BootstrapResolveTimeoutTest {
    private static final String NAME = "kafka.unresolvable.test";

    /** Resolves {@link #NAME} to a closed loopback port only once {@code resolvable} is set; nothing else. */
    private static HostResolverHook dns(AtomicBoolean resolvable) {
        return host -> {
            if (host.equals(NAME) && resolvable.get()) {
                return new InetAddress[] {InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1})};
            }
            throw new UnknownHostException(host);
        };
    }

    private static Map<String, Object> props(long boundMs) {
        Map<String, Object> p = ItSupport.fastProps(NAME + ":1");
        p.put("bootstrap.resolve.timeout.ms", boundMs);
        return p;
    }

    @Test
    void theInstanceReportsBootstrapDnsOnceTheBoundPassedOnItsClockAndClearsItWhenANameResolves() {
        AtomicLong nowNs = new AtomicLong(1_000_000_000L);
        Ticker ticker = nowNs::get;
        AtomicBoolean resolvable = new AtomicBoolean();
        try (LogCapture log = LogCapture.at("info", "dev.kmeta");
             KafkaMetadata m = KafkaMetadata.builder(props(5_000)).hostResolver(dns(resolvable)).ticker(ticker)
                     .build()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> m.evidence().get("-1") != null
                    && m.evidence().get("-1").lastProblem() == ConnectionEvidence.Problem.DNS);
            nowNs.addAndGet(TimeUnit.MILLISECONDS.toNanos(4_999));
            // 1 ms before the bound on the instance's clock, which stands still: the sender steps every
            // millisecond of real time (it waits for the bound), and none of those steps may report
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> {
                m.requestUpdate();
                return m.bootstrapResolutionFailure() == null;
            });
            assertEquals(0, m.stats().bootstrapResolveTimeouts());

            nowNs.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
            m.requestUpdate(); // wakes the sender, whose next step finds the bound passed
            await().atMost(Duration.ofSeconds(20)).until(() -> m.bootstrapResolutionFailure() != null);
            Diagnosis d = m.bootstrapResolutionFailure();
            assertEquals(Diagnosis.Cause.BOOTSTRAP_DNS, d.cause(), d.message());
            assertTrue(d.seen().contains("bootstrap.resolve.timeout.ms=5000")
                    && d.seen().contains("cannot resolve host name " + NAME), d.seen());
            assertEquals(1, m.stats().bootstrapResolveTimeouts());
            assertTrue(log.text().contains("ERROR") && log.text().contains("no name of bootstrap.servers=["
                    + NAME + ":1] resolved within bootstrap.resolve.timeout.ms=5000"), log.text());

            resolvable.set(true);
            nowNs.addAndGet(TimeUnit.SECONDS.toNanos(5)); // past the client's reconnect backoff: it tries again
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                m.requestUpdate();
                return m.bootstrapResolutionFailure() == null;
            });
            assertEquals(1, m.stats().bootstrapResolveTimeouts(), "counted once");
            assertTrue(log.text().contains("a bootstrap name of [" + NAME + ":1] resolves now"), log.text());
        }
    }

    @Test
    void aSendStillFailsAsBootstrapDnsWithinItsBudgetAndWithoutTheKeyNothingIsReported() {
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta"); // the bounded one's ERROR is expected: captured
             KafkaMetadata bounded = KafkaMetadata.builder(props(200)).hostResolver(dns(new AtomicBoolean()))
                .build();
             KafkaMetadata unbounded = KafkaMetadata.builder(props(0)).hostResolver(dns(new AtomicBoolean()))
                     .build()) {
            KafkaMetadataTimeoutException e = assertThrows(KafkaMetadataTimeoutException.class,
                    () -> bounded.awaitTopic("t", bounded.newDeadline(Duration.ofSeconds(1))));
            assertEquals(Diagnosis.Cause.BOOTSTRAP_DNS, e.diagnosis().cause(), e.getMessage());
            await().atMost(Duration.ofSeconds(20)).until(() -> bounded.bootstrapResolutionFailure() != null);

            KafkaMetadataTimeoutException u = assertThrows(KafkaMetadataTimeoutException.class,
                    () -> unbounded.awaitTopic("t", unbounded.newDeadline(Duration.ofSeconds(1))));
            assertEquals(Diagnosis.Cause.BOOTSTRAP_DNS, u.diagnosis().cause(), u.getMessage());
            assertNull(unbounded.bootstrapResolutionFailure(), "0: no bound, as before");
            assertEquals(0, unbounded.stats().bootstrapResolveTimeouts());
            assertTrue(log.text().contains("ERROR dev.kmeta.sender.internal.BootstrapResolutionWatch - ")
                    && log.text().contains("resolved within bootstrap.resolve.timeout.ms=200"), log.text());
        }
    }
}
