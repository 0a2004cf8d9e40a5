package dev.kmeta.producer;

import dev.kmeta.producer.internal.KmetaProducers;
import dev.kmeta.producer.internal.ProducerBridge;
import dev.kmeta.testkit.KafkaCluster;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Shared bits of the KafkaProducer-route tests: producer properties, the two kinds of producer, checks. */
final class ProducerIt {
    static final short METADATA = 3;
    private static final AtomicInteger IDS = new AtomicInteger();

    private ProducerIt() {
    }

    /** A stock KafkaProducer, or one on kmeta: the two things every comparison runs. */
    enum Kind {
        STOCK(KafkaProducer::new),
        KMETA(KmetaProducer::create);

        private final Function<Map<String, Object>, Producer<String, String>> make;

        Kind(Function<Map<String, Object>, Producer<String, String>> make) {
            this.make = make;
        }

        Producer<String, String> create(Map<String, Object> props) {
            return make.apply(props);
        }
    }

    /** String-keyed producer properties that notice faults quickly; (the brokers of the tests do not auto-create topics). */
    static Map<String, Object> props(String bootstrap) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "it-producer-" + IDS.incrementAndGet());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        return p;
    }

    /** The kmeta bridge of a producer made by KmetaProducer. */
    static ProducerBridge bridge(Producer<?, ?> producer) {
        ProducerBridge b = KmetaProducers.bridgeOf(producer);
        if (b == null) {
            throw new AssertionError("not a kmeta-backed producer: " + producer);
        }
        return b;
    }

    /** Metadata requests the brokers' proxies have seen since their last reset. */
    static long metadataRequests(KafkaCluster cluster) {
        long n = 0;
        for (int id : cluster.brokerIds()) {
            n += cluster.proxy(id).requestCount(METADATA);
        }
        return n;
    }

    static void resetProxies(KafkaCluster cluster) {
        for (int id : cluster.brokerIds()) {
            cluster.proxy(id).resetCounters();
        }
    }

    static int openConnections(KafkaCluster cluster) {
        int n = 0;
        for (int id : cluster.brokerIds()) {
            n += cluster.proxy(id).openConnections();
        }
        return n;
    }

    /** Live threads a kmeta client made ({@code kmeta-...}), leaving out the testkit's own. */
    static List<String> kmetaThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("kmeta-") && !n.startsWith("kmeta-testkit"))
                .sorted()
                .collect(Collectors.toList());
    }

    /** A loopback port nothing listens on. */
    static int closedPort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A measured number, on the test's output (the build logs at WARN). */
    static void report(String format, Object... args) {
        System.out.println("[measured] " + String.format(format, args));
    }

    static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
