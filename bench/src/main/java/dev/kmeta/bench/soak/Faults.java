package dev.kmeta.bench.soak;

import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The soak's faults, from the fault matrix: each is applied, held for a few seconds while the senders keep waiting,
 * then undone, one at a time, so that the cluster is whole again between faults. Random choices come from the
 * soak's seeded {@link Random}. Used by the fault thread only (not thread-safe), except {@link #counts()}.
 */
final class Faults {
    /** What can go wrong. */
    enum Kind {
        /** A broker stopped cleanly, then started again. */
        BROKER_RESTART,
        /** One broker's proxy swallows everything (existing connections too), then passes again. */
        BLACKHOLE_ONE,
        /** Every broker's proxy swallows everything, then passes again. */
        BLACKHOLE_ALL,
        /** One broker answers slower than request.timeout.ms, then at full speed. */
        LATENCY,
        /** Every connection to one broker is reset (TCP RST). */
        CONNECTION_RESET,
        /** A topic gets more partitions while senders wait for the new indexes. */
        PARTITIONS_ADDED,
        /** A new topic is created while senders already wait for it. */
        TOPIC_CREATED
    }

    /** Latency beyond the clients' request.timeout.ms ({@link SoakHarness#REQUEST_TIMEOUT_MS}). */
    static final long LATENCY_MS = SoakHarness.REQUEST_TIMEOUT_MS + 500;
    private static final int MAX_PARTITIONS = 12;

    private final KafkaCluster kafka;
    private final Topics topics;
    private final Random random;
    private final Map<Kind, AtomicInteger> counts = new TreeMap<>();
    private final Runnable whileAllBlackholed;
    private int created;

    /**
     * @param whileAllBlackholed run right after every broker is blackholed, before the hold (the harness's probe that
     *                           a fresh instance's wait times out then)
     */
    Faults(KafkaCluster kafka, Topics topics, Random random, Runnable whileAllBlackholed) {
        this.kafka = kafka;
        this.topics = topics;
        this.random = random;
        this.whileAllBlackholed = whileAllBlackholed;
        for (Kind k : Kind.values()) {
            counts.put(k, new AtomicInteger());
        }
    }

    /** Applies a random fault, holds it {@code holdMs}, undoes it; returns what it did. */
    Kind injectOne(long holdMs) throws InterruptedException {
        Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
        int broker = kafka.brokerIds().get(random.nextInt(kafka.brokerIds().size()));
        switch (kind) {
            case BROKER_RESTART -> {
                kafka.stopBroker(broker);
                hold(holdMs);
                kafka.startBroker(broker);
            }
            case BLACKHOLE_ONE -> {
                kafka.proxy(broker).blackhole();
                hold(holdMs);
                kafka.proxy(broker).pass();
            }
            case BLACKHOLE_ALL -> {
                proxies().forEach(FaultProxy::blackhole);
                whileAllBlackholed.run();
                hold(holdMs);
                proxies().forEach(FaultProxy::pass);
            }
            case LATENCY -> {
                kafka.proxy(broker).latencyMs(LATENCY_MS);
                hold(holdMs);
                kafka.proxy(broker).latencyMs(0);
            }
            case CONNECTION_RESET -> kafka.proxy(broker).resetAll();
            case PARTITIONS_ADDED -> addPartitions();
            case TOPIC_CREATED -> createTopic();
            default -> throw new IllegalStateException(kind.toString());
        }
        counts.get(kind).incrementAndGet();
        return kind;
    }

    /** Undoes whatever may be left (a fault interrupted half-way): every broker running, every proxy passing. */
    void restoreAll() {
        for (int id : kafka.brokerIds()) {
            if (!kafka.runningBrokerIds().contains(id)) {
                kafka.startBroker(id);
            }
            kafka.proxy(id).latencyMs(0).pass();
        }
    }

    private void addPartitions() {
        String topic = topics.randomExisting(random);
        int now = topics.partitions(topic);
        if (now >= MAX_PARTITIONS) {
            return;
        }
        int next = now + 1 + random.nextInt(2);
        topics.expectPartitions(topic, next); // senders ask for the new indexes before they exist
        kafka.addPartitions(topic, next);
    }

    private void createTopic() {
        String topic = "soak-new-" + created++;
        int partitions = 1 + random.nextInt(3);
        topics.expect(topic, partitions); // senders ask for it before it exists
        kafka.createTopic(topic, partitions, Math.min(3, kafka.brokerIds().size()));
        topics.created(topic);
    }

    private List<FaultProxy> proxies() {
        return kafka.brokerIds().stream().map(kafka::proxy).toList();
    }

    private static void hold(long millis) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(millis);
    }

    /** How many faults of each kind were injected. */
    Map<String, Integer> counts() {
        Map<String, Integer> m = new TreeMap<>();
        counts.forEach((k, n) -> m.put(k.name(), n.get()));
        return m;
    }

    int total() {
        return counts.values().stream().mapToInt(AtomicInteger::get).sum();
    }
}
