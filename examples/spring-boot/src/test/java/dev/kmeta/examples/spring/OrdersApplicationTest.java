package dev.kmeta.examples.spring;

import dev.kmeta.testkit.KafkaClusterExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Spring Boot example, run as its {@code run} script runs it, with its own application.properties: against an
 * in-process broker every order is acknowledged (exit 0); with no broker, kmeta's diagnosis of the bootstrap comes
 * within the properties' max.block.ms (5 s), not Kafka's 60 s (exit 1).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OrdersApplicationTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    record Run(int exitCode, String out) {
    }

    private static Run printed(Callable<Integer> app) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        System.setOut(new PrintStream(copy, true, StandardCharsets.UTF_8));
        try {
            int exit = app.call();
            return new Run(exit, copy.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }

    @Test
    void everyOrderIsAcknowledgedByTheBroker() throws Exception {
        KAFKA.cluster().createTopic("orders", 3, 1);
        Run r = printed(() -> OrdersApplication.run("--spring.kafka.bootstrap-servers=" + KAFKA.bootstrapServers()));
        assertEquals(0, r.exitCode(), r.out());
        assertEquals(OrdersApplication.OrderSender.ORDERS, r.out().lines().filter(l -> l.matches("order-\\d+ acked: "
                + "orders-\\d@\\d+")).count(), r.out());
        assertTrue(r.out().contains("10 of 10 orders acknowledged"), r.out());
    }

    @Test
    void noBrokerIsDiagnosedWithinMaxBlockMs() throws Exception {
        long startNs = System.nanoTime();
        Run r = printed(() -> OrdersApplication.run("--spring.kafka.bootstrap-servers=127.0.0.1:1"));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertEquals(1, r.exitCode(), r.out());
        assertTrue(r.out().contains("not sent: BOOTSTRAP_UNREACHABLE: "), r.out());
        assertTrue(r.out().contains("0 of 10 orders acknowledged"), r.out());
        assertTrue(ms < 20_000, "max.block.ms 5 s, not 60: " + ms + " ms");
    }
}
