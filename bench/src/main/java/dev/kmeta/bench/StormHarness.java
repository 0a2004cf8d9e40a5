package dev.kmeta.bench;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import dev.kmeta.producer.KmetaProducer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * P7, side by side (a plain {@code main} against a real in-process broker from testkit): a lookup storm. {@code
 * --threads} threads (200) send to a topic that does not exist for {@code --seconds} (10), each send blocking at most
 * {@code max.block.ms} = 1,000 ms; how many MetadataRequests reach the broker? Counted by the testkit
 * {@link FaultProxy} in front of the broker ({@code requestCount(3)}; every client connects through it), reset
 * before each scenario. Auto topic creation is off on the broker.
 *
 * <p>Four scenarios, in this order, one after the other on the same broker:
 * <ul>
 *   <li>{@code kafka-clients, 1 producer}: one {@code KafkaProducer}; every thread calls
 *       {@code send(record).get()} on it (the send fails after 1 s in {@code waitOnMetadata});</li>
 *   <li>{@code kafka-clients, 20 producers}: 20 {@code KafkaProducer}s, 10 threads each;</li>
 *   <li>{@code kmeta, 1 instance}: one {@code KafkaMetadata.create}; every thread calls
 *       {@code awaitTopic(topic, metadata.newDeadline(Duration.ofSeconds(1)))}, the metadata wait of a kmeta send;</li>
 *   <li>{@code kmeta, 20 users of one instance}: 20 {@code KafkaMetadata.shared(props)} (each its own
 *       {@code client.id}, same bootstrap: one instance), 10 threads each;</li>
 *   <li>{@code kmeta KafkaProducer, 1 / 20 producers}: Apache Kafka's {@code KafkaProducer} made by
 *       {@code KmetaProducer.create} (the 20 share one kmeta instance), {@code send(record).get()} as the stock
 *       scenarios; "timed out" counts kmeta's diagnosed timeouts, "fallbacks" KafkaProducer's own fixed message.</li>
 * </ul>
 * Both with the producer defaults {@code retry.backoff.ms} 100 and {@code retry.backoff.max.ms} 1,000. The count
 * includes each client's start-up metadata request(s).
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.StormHarness > bench/results/storm.txt
 * }</pre>
 * Options: {@code --threads N} (200), {@code --seconds N} (10), {@code --producers N} (20),
 * {@code --impl both|kmeta|kafka-clients}. About a minute.
 *
 * <p>Not thread-safe; a program.
 */
public final class StormHarness {
    static final short METADATA = 3;
    static final String MISSING = "storm-missing-topic";
    static final long MAX_BLOCK_MS = 1_000;

    private StormHarness() {
    }

    /** What one scenario did. */
    record Storm(String scenario, long requests, long calls, long failures, long fallbacks, long unexpected,
                 long elapsedMs) {
    }

    /** One client that blocks a thread for at most 1 s on a topic that is not there. */
    interface Client extends AutoCloseable {
        void send() throws Exception;

        @Override
        void close();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args, Map.of("threads", "200", "seconds", "10", "producers", "20",
                "impl", "both"));
        int threads = Args.intOpt(opts, "threads");
        int seconds = Args.intOpt(opts, "seconds");
        int producers = Args.intOpt(opts, "producers");
        String impl = opts.get("impl");
        if (!impl.equals("both")) {
            Wire.checkImpl(impl);
        }
        if (threads % producers != 0) {
            throw new IllegalArgumentException("--threads must be a multiple of --producers: " + threads + ", "
                    + producers);
        }
        System.out.printf(Locale.ROOT, "StormHarness: %d threads x %d s, max.block.ms %d, 1 and %d clients, %s%n",
                threads, seconds, MAX_BLOCK_MS, producers, Args.jvm());
        List<Storm> storms = new ArrayList<>();
        java.nio.file.Path storage = Files.createTempDirectory("kmeta-storm-");
        try (KafkaCluster cluster = KafkaCluster.builder().withProxies().storageRoot(storage).build().start()) {
            FaultProxy proxy = cluster.proxy(0);
            String bootstrap = cluster.proxiedBootstrapServers();
            if (!impl.equals(Wire.IMPL_KMETA)) {
                storms.add(storm(Wire.IMPL_KAFKA + ", 1 producer", proxy, threads, seconds,
                        n -> kafkaProducer(bootstrap, "storm-kafka-1"), 1));
                storms.add(storm(Wire.IMPL_KAFKA + ", " + producers + " producers", proxy, threads, seconds,
                        n -> kafkaProducer(bootstrap, "storm-kafka-" + producers + "-" + n), producers));
            }
            if (!impl.equals(Wire.IMPL_KAFKA)) {
                storms.add(storm(Wire.IMPL_KMETA + ", 1 instance", proxy, threads, seconds,
                        n -> kmeta(KafkaMetadata.create(props(bootstrap, "storm-kmeta-1"))), 1));
                storms.add(storm(Wire.IMPL_KMETA + ", " + producers + " users of one shared instance", proxy,
                        threads, seconds, n -> kmeta(KafkaMetadata.shared(props(bootstrap, "storm-kmeta-" + n))),
                        producers));
                storms.add(storm(Wire.IMPL_KMETA + " KafkaProducer, 1 producer", proxy, threads, seconds,
                        n -> kmetaProducer(bootstrap, "storm-kmeta-producer-1"), 1));
                storms.add(storm(Wire.IMPL_KMETA + " KafkaProducer, " + producers + " producers on one instance",
                        proxy, threads, seconds,
                        n -> kmetaProducer(bootstrap, "storm-kmeta-producer-" + producers + "-" + n), producers));
            }
        } finally {
            Files.deleteIfExists(storage); // the cluster deleted what it stored there
        }
        System.out.println();
        System.out.println("| scenario | MetadataRequests at the broker | sends (each <= 1 s) | timed out | of which"
                + " without a diagnosis | other outcomes | elapsed |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (Storm s : storms) {
            System.out.printf(Locale.ROOT, "| %s | **%d** | %d | %d | %d | %d | %d ms |%n", s.scenario(),
                    s.requests(), s.calls(), s.failures(), s.fallbacks(), s.unexpected(), s.elapsedMs());
        }
        System.out.println("load at the end: " + Args.load());
    }

    static Map<String, Object> props(String bootstrap, String clientId) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", clientId);
        p.put("max.block.ms", MAX_BLOCK_MS);
        p.put("retry.backoff.ms", 100);
        p.put("retry.backoff.max.ms", 1_000);
        return p;
    }

    static Client kafkaProducer(String bootstrap, String clientId) {
        Map<String, Object> p = props(bootstrap, clientId);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        return producerClient(new KafkaProducer<>(p));
    }

    /** Apache Kafka's KafkaProducer with kmeta as its metadata; producers of one bootstrap share one instance. */
    static Client kmetaProducer(String bootstrap, String clientId) {
        Map<String, Object> p = props(bootstrap, clientId);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        return producerClient(KmetaProducer.create(p));
    }

    private static Client producerClient(Producer<byte[], byte[]> producer) {
        byte[] value = new byte[16];
        return new Client() {
            @Override
            public void send() throws Exception {
                producer.send(new ProducerRecord<>(MISSING, value)).get();
            }

            @Override
            public void close() {
                producer.close(Duration.ofSeconds(5));
            }
        };
    }

    static Client kmeta(KafkaMetadata m) {
        return new Client() {
            @Override
            public void send() {
                m.awaitTopic(MISSING, m.newDeadline(Duration.ofMillis(MAX_BLOCK_MS)));
            }

            @Override
            public void close() {
                m.close();
            }
        };
    }

    /** Makes the n-th client. */
    interface ClientFactory {
        Client make(int n) throws Exception;
    }

    static Storm storm(String scenario, FaultProxy proxy, int threads, int seconds, ClientFactory factory,
                       int clients) throws Exception {
        proxy.resetCounters();
        List<Client> made = new ArrayList<>();
        AtomicLong calls = new AtomicLong();
        AtomicLong timeouts = new AtomicLong();
        AtomicLong fallbacks = new AtomicLong();
        AtomicLong unexpected = new AtomicLong();
        Map<String, Throwable> firstUnexpected = new java.util.concurrent.ConcurrentHashMap<>();
        long start = System.nanoTime();
        try {
            for (int i = 0; i < clients; i++) {
                made.add(factory.make(i));
            }
            CountDownLatch go = new CountDownLatch(1);
            long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            List<Thread> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Client c = made.get(t % clients);
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    while (System.nanoTime() < endNs) {
                        try {
                            c.send();
                            unexpected.incrementAndGet();
                            firstUnexpected.putIfAbsent("returned", new IllegalStateException("topic found"));
                        } catch (Exception e) {
                            if (isTimeout(e)) {
                                timeouts.incrementAndGet();
                                if (!dev.kmeta.metadata.Diagnosis.from(e).isPresent()) {
                                    fallbacks.incrementAndGet();
                                }
                            } else {
                                unexpected.incrementAndGet();
                                firstUnexpected.putIfAbsent(e.getClass().getName(), e);
                            }
                        }
                        calls.incrementAndGet();
                    }
                }, "storm-" + t);
                thread.setDaemon(true);
                running.add(thread);
                thread.start();
            }
            go.countDown();
            for (Thread t : running) {
                t.join(TimeUnit.SECONDS.toMillis(seconds) + 30_000);
            }
        } finally {
            made.forEach(Client::close);
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Storm s = new Storm(scenario, proxy.requestCount(METADATA), calls.get(), timeouts.get(), fallbacks.get(),
                unexpected.get(), elapsedMs);
        System.out.printf(Locale.ROOT, "%s: %d MetadataRequests, %d sends, %d timed out (%d without a diagnosis), %d "
                + "other, %d ms, load %s%n", scenario, s.requests(), s.calls(), s.failures(), s.fallbacks(),
                s.unexpected(), elapsedMs, Args.load());
        firstUnexpected.forEach((k, e) -> System.out.println("  unexpected: " + e));
        return s;
    }

    /** A send's metadata timeout, as either client reports it (possibly wrapped by a future). */
    static boolean isTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.apache.kafka.common.errors.TimeoutException
                    || t instanceof dev.kmeta.metadata.MetadataTimeoutException) {
                return true;
            }
        }
        return false;
    }
}
