package dev.kmeta.producer.internal;

import dev.kmeta.producer.internal.stats.RouteMBean;
import dev.kmeta.testkit.LogCapture;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fallback to a stock KafkaProducer (issue 40) is visible without a logging binding: with SLF4J's NOP factory
 * (what SLF4J 2 uses when only {@code slf4j-api} is there) one line goes to stderr; with a binding, only the log. The
 * line names the producer by the client id KafkaProducer generated when none was set, and the route MBean counts it.
 * No broker: a stock producer connects at its first send only.
 */
class FallbackNoticeTest {
    private static final String WHY = "kmeta's KafkaProducer route supports kafka-clients 4.0.x to 4.4.x; found "
            + "kafka-clients 3.9.2 on the class path (a test's reason)";

    private static Map<String, Object> props() {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", "127.0.0.1:1");
        props.put("kmeta.metadata.jitter", "0.1"); // kmeta's keys are dropped: KafkaProducer would warn of them
        return props;
    }

    private static List<String> stockProducerLines(org.slf4j.ILoggerFactory logging, Map<String, Object> props,
                                                   String[] clientId) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta.producer")) { // the WARN itself: expected, asserted
            try (PrintStream err = new PrintStream(captured, true, StandardCharsets.UTF_8);
                 Producer<String, String> producer = KmetaProducers.stock(props, new StringSerializer(),
                         new StringSerializer(), WHY, logging, err)) {
                clientId[0] = producer.metrics().keySet().stream().map(MetricName::tags)
                        .map(t -> t.get("client-id")).filter(id -> id != null).findFirst().orElseThrow();
            }
            assertTrue(log.text().contains("WARN dev.kmeta.producer.internal.KmetaProducers - [Producer clientId="
                    + clientId[0] + "] A stock KafkaProducer, not on kmeta: " + WHY), log.text());
        }
        return captured.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList());
    }

    @Test
    void withoutALoggingProviderTheFallbackIsOneLineOnStderrNamingTheGeneratedClientId() throws Exception {
        RouteMBean.registerOnce();
        long before = (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(RouteMBean.name(), "Fallbacks");
        String[] clientId = new String[1];

        List<String> lines = stockProducerLines(new NOPLoggerFactory(), props(), clientId);

        assertTrue(clientId[0].matches("producer-\\d+"), "KafkaProducer generated it: " + clientId[0]);
        assertEquals(1, lines.size(), "one line: " + lines);
        String line = lines.get(0);
        assertTrue(line.startsWith("kmeta(W): [Producer clientId=" + clientId[0] + "] A stock KafkaProducer, not on "
                + "kmeta: " + WHY + ". Lost: "), line);
        assertTrue(line.contains("kmeta.producer.unsupported.version=fail refuses instead"), line);
        assertEquals(before + 1, ManagementFactory.getPlatformMBeanServer().getAttribute(RouteMBean.name(),
                "Fallbacks"), "the route MBean counts it");
    }

    @Test
    void withALoggingProviderTheLogAloneSaysIt() {
        assertFalse(LoggerFactory.getILoggerFactory() instanceof NOPLoggerFactory, "the tests' slf4j-simple is bound");
        Map<String, Object> props = props();
        props.put("client.id", "orders");
        String[] clientId = new String[1];

        assertEquals(List.of(), stockProducerLines(LoggerFactory.getILoggerFactory(), props, clientId));
        assertEquals("orders", clientId[0]);
    }
}
