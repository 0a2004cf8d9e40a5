package dev.kmeta.streams;

import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 37, as a Kafka Streams user meets it: an exactly-once v2 application whose producers come from
 * {@link KmetaClientSupplier} (one shared kmeta instance), its input topic deleted and re-created while it runs. Every
 * stream thread dies with MissingSourceTopicException and Streams replaces it; the replacement threads' producers join
 * the shared instance, which still held the deleted topic's id for a topic no producer writes to, and kafka-clients 4.4
 * built their TxnOffsetCommit from it and retried it forever: processing never resumed and close() did not finish.
 * A stock application runs beside it, on its own topics, in the same run: kmeta's must be processing again within
 * stock's time + 10 s, with exactly-once output (each key's count exact, never above), and close within its timeout.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ExactlyOnceRecreatedInputTest {
    private static final int THREADS = 2;
    private static final int PARTITIONS = 3;
    private static final int KEYS = 10;
    private static final int BEFORE = 100;
    private static final int AFTER = 100;
    private static final long SLACK_MS = 10_000;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(1));

    @TempDir
    Path stateDir;

    enum Route { STOCK, KMETA }

    /** One application: its topics, its Streams, its thread deaths and what its output said last per key. */
    final class App implements AutoCloseable {
        final Route route;
        final String input;
        final String output;
        final KafkaStreams streams;
        final AtomicInteger deaths = new AtomicInteger();
        final ConcurrentLinkedQueue<String> deathCauses = new ConcurrentLinkedQueue<>();
        final KafkaConsumer<String, Long> reader;
        final Map<String, Long> counts = new HashMap<>();
        /** Any count above what was fed: a record processed twice. */
        final List<String> overCounts = new ArrayList<>();

        App(Route route) {
            this.route = route;
            String name = route.name().toLowerCase();
            this.input = "input-" + name;
            this.output = "counts-" + name;
            KAFKA.cluster().createTopic(input, PARTITIONS, 1);
            KAFKA.cluster().createTopic(output, 1, 1);
            StreamsBuilder builder = new StreamsBuilder();
            builder.<String, String>stream(input)
                    .groupByKey()
                    .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("counts-store"))
                            .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                    .toStream()
                    .to(output, Produced.with(Serdes.String(), Serdes.Long()));
            String bootstrap = KAFKA.cluster().bootstrapServers();
            Properties p = StreamsIt.streamsProps(bootstrap, "eos-" + name, StreamsConfig.EXACTLY_ONCE_V2, THREADS,
                    stateDir.resolve(name));
            // both applications' consumers notice the re-created input sooner (5 min by default), and a dead
            // thread's member leaves the group after 6 s, not 45: a shorter test, the same for both routes
            p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.METADATA_MAX_AGE_CONFIG), 2_000);
            p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6_000);
            p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
            if (route == Route.KMETA) {
                p.put(StreamsConfig.DEFAULT_CLIENT_SUPPLIER_CONFIG, KmetaClientSupplier.class); // the no-code path
            }
            this.streams = new KafkaStreams(builder.build(), p);
            streams.setUncaughtExceptionHandler(e -> {
                deaths.incrementAndGet();
                deathCauses.add(e.getClass().getSimpleName() + (e.getCause() == null ? ""
                        : " <- " + e.getCause().getClass().getSimpleName()));
                return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
            });
            this.reader = StreamsIt.countsReader(bootstrap, output);
        }

        /** Reads what the output committed since the last look; true when every key's count is {@code expected}. */
        boolean countsAre(long expected) {
            for (ConsumerRecord<String, Long> r : reader.poll(Duration.ofMillis(100))) {
                counts.put(r.key(), r.value());
                if (r.value() > (BEFORE + AFTER) / KEYS) { // counts only grow: a record counted twice shows
                    overCounts.add(r.key() + "=" + r.value());
                }
            }
            return counts.size() == KEYS && counts.values().stream().allMatch(v -> v == expected);
        }

        @Override
        public void close() {
            reader.close(Duration.ofSeconds(5));
            streams.close(Duration.ofSeconds(5));
        }
    }

    @Test
    void anExactlyOnceApplicationResumesAfterItsInputTopicIsRecreated() throws Exception {
        Map<Route, App> apps = new EnumMap<>(Route.class);
        try (KafkaProducer<String, String> feed = StreamsIt.feeder(KAFKA.cluster().bootstrapServers())) {
            for (Route route : Route.values()) {
                apps.put(route, new App(route));
            }
            apps.values().forEach(a -> a.streams.start());
            await().atMost(Duration.ofSeconds(60)).until(() -> apps.values().stream()
                    .allMatch(a -> a.streams.state() == KafkaStreams.State.RUNNING));
            feedAll(feed, apps, BEFORE);
            await().atMost(Duration.ofSeconds(60)).until(() -> apps.values().stream()
                    .allMatch(a -> a.countsAre(BEFORE / KEYS)));

            for (App a : apps.values()) {
                KAFKA.cluster().deleteTopic(a.input);
            }
            // every stream thread of both applications dies and is replaced while the input is missing
            await().atMost(Duration.ofSeconds(90)).until(() -> apps.values().stream()
                    .allMatch(a -> a.deaths.get() >= THREADS));
            for (App a : apps.values()) {
                KAFKA.cluster().createTopic(a.input, PARTITIONS, 1);
            }
            long recreatedNs = System.nanoTime();
            feedAll(feed, apps, AFTER);

            Map<Route, Long> resumedMs = new EnumMap<>(Route.class);
            long expected = (BEFORE + AFTER) / KEYS;
            await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(50)).until(() -> {
                for (App a : apps.values()) {
                    if (!resumedMs.containsKey(a.route) && a.countsAre(expected)) {
                        resumedMs.put(a.route, (System.nanoTime() - recreatedNs) / 1_000_000);
                    }
                }
                return resumedMs.size() == apps.size() || resumedMs.containsKey(Route.STOCK)
                        && (System.nanoTime() - recreatedNs) / 1_000_000 > resumedMs.get(Route.STOCK) + SLACK_MS
                        + 5_000;
            });
            for (App a : apps.values()) {
                report("%s: every count exact %d ms after the re-creation; %d thread deaths (%s)", a.route,
                        resumedMs.getOrDefault(a.route, -1L), a.deaths.get(), Set.copyOf(a.deathCauses));
            }
            assertTrue(resumedMs.containsKey(Route.KMETA), "kmeta's application processed the input again; "
                    + "counts " + apps.get(Route.KMETA).counts + ", stock's after " + resumedMs.get(Route.STOCK)
                    + " ms");
            assertTrue(resumedMs.get(Route.KMETA) <= resumedMs.get(Route.STOCK) + SLACK_MS,
                    "within stock's time + 10 s: " + resumedMs);
            for (App a : apps.values()) {
                assertEquals(List.of(), a.overCounts, a.route + ": exactly once - no count above what was fed");
                long start = System.nanoTime();
                assertTrue(a.streams.close(Duration.ofSeconds(30)), a.route + ": close(30 s) finished");
                report("%s: close took %d ms", a.route, (System.nanoTime() - start) / 1_000_000);
            }
        } finally {
            apps.values().forEach(App::close);
        }
    }

    private static void feedAll(KafkaProducer<String, String> feed, Map<Route, App> apps, int records)
            throws Exception {
        for (App a : apps.values()) {
            for (int i = 0; i < records; i++) {
                feed.send(new ProducerRecord<>(a.input, "k" + (i % KEYS), "v" + i));
            }
        }
        feed.flush();
    }

}
