package dev.kmeta.streams;

import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.TestClients;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 41: a real topology - a repartition and two state stores - run to completion on Streams' own clients and on
 * {@link KmetaClientSupplier} installed by the constructor ({@code new KafkaStreams(topology, props, supplier)}), at
 * least once and exactly once v2: the outputs are the same, and the expected ones. On kmeta one instance serves the
 * application's producers while it runs and is gone once it closed. The streams rebalance protocol
 * ({@code group.protocol=streams}, where Streams builds the main consumer itself) runs on kmeta too.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class StreamsParityTest {
    private static final int RECORDS = 600;
    private static final int KEYS = 20;
    private static final int VALUES = 7;
    private static final int THREADS = 2;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(1));

    @TempDir
    Path stateDir;

    @Test
    void atLeastOnceOutputsEqualStocks() throws Exception {
        parity(StreamsConfig.AT_LEAST_ONCE, "classic");
    }

    @Test
    void exactlyOnceOutputsEqualStocks() throws Exception {
        parity(StreamsConfig.EXACTLY_ONCE_V2, "classic");
    }

    @Test
    void theStreamsRebalanceProtocolRunsOnKmeta() throws Exception {
        Map<String, Long> kmeta = run("streams-protocol", StreamsConfig.AT_LEAST_ONCE, "streams", true);
        assertEquals(expectedCounts(), kmeta, "each value's count");
    }

    private void parity(String guarantee, String protocol) throws Exception {
        String tag = guarantee.replace('_', '-');
        Map<String, Long> stock = run(tag + "-stock", guarantee, protocol, false);
        Map<String, Long> kmeta = run(tag + "-kmeta", guarantee, protocol, true);
        assertEquals(expectedCounts(), stock, "stock: each value's count");
        assertEquals(stock, kmeta, "the same output on kmeta's producers");
    }

    /** Runs the topology on a fresh input to completion; returns each value's final count from the output. */
    private Map<String, Long> run(String name, String guarantee, String protocol, boolean kmeta) throws Exception {
        String input = "in-" + name;
        String output = "counts-" + name;
        KAFKA.cluster().createTopic(input, 4, 1);
        KAFKA.cluster().createTopic(output, 1, 1);
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> in = builder.stream(input);
        in.groupBy((k, v) -> v, Grouped.with(Serdes.String(), Serdes.String())) // a repartition topic
                .count(Materialized.as(Stores.inMemoryKeyValueStore("by-value")))
                .toStream().to(output, Produced.with(Serdes.String(), Serdes.Long()));
        in.groupByKey().reduce((a, b) -> b, Materialized.as(Stores.inMemoryKeyValueStore("last-by-key")));
        Properties p = StreamsIt.streamsProps(KAFKA.cluster().bootstrapServers(), "parity-" + name, guarantee,
                THREADS, stateDir.resolve(name));
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, protocol);
        KafkaStreams streams = kmeta ? new KafkaStreams(builder.build(), p, new KmetaClientSupplier())
                : new KafkaStreams(builder.build(), p);
        Map<String, Long> counts = new TreeMap<>();
        long start = System.nanoTime();
        try (KafkaConsumer<String, Long> reader = StreamsIt.countsReader(KAFKA.cluster().bootstrapServers(), output)) {
            streams.start();
            feed(input);
            Map<String, Long> expected = expectedCounts();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(20)).until(() -> {
                for (ConsumerRecord<String, Long> r : reader.poll(Duration.ofMillis(100))) {
                    counts.put(r.key(), r.value());
                }
                return counts.equals(expected) || counts.values().stream().anyMatch(v -> v > RECORDS / VALUES + 1);
            });
            List<String> instances = kmetaThreads(name);
            assertEquals(kmeta ? 1 : 0, instances.size(), "kmeta instances for the producers: " + instances);
            long producersInMetrics = streams.metrics().keySet().stream()
                    .filter(m -> m.group().equals("producer-metrics")).map(m -> m.tags().get("client-id"))
                    .distinct().count();
            assertEquals(THREADS, producersInMetrics, "KafkaStreams.metrics() reports each thread's producer");
        } finally {
            assertTrue(streams.close(Duration.ofSeconds(30)), name + ": closed within 30 s");
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(List.of(), kmetaThreads(name),
                "the instance closed with the application's last producer"));
        report("%s: %s on %s producers, %s protocol, done in %d ms", name, guarantee, kmeta ? "kmeta" : "stock",
                protocol, (System.nanoTime() - start) / 1_000_000);
        return counts;
    }

    private static List<String> kmetaThreads(String name) {
        return TestClients.kmetaThreads().stream().filter(t -> t.contains("parity-" + name)).toList();
    }

    private static Map<String, Long> expectedCounts() {
        Map<String, Long> expected = new TreeMap<>();
        for (int i = 0; i < RECORDS; i++) {
            expected.merge("v" + (i % VALUES), 1L, Long::sum);
        }
        return expected;
    }

    private static void feed(String input) {
        try (KafkaProducer<String, String> feed = StreamsIt.feeder(KAFKA.cluster().bootstrapServers())) {
            for (int i = 0; i < RECORDS; i++) {
                feed.send(new ProducerRecord<>(input, "k" + (i % KEYS), "v" + (i % VALUES)));
            }
            feed.flush();
        }
    }
}
