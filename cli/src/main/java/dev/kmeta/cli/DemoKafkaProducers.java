package dev.kmeta.cli;

import dev.kmeta.cluster.Node;
import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code kmeta demo --kafka-producer}: three Apache Kafka {@code KafkaProducer}s made by {@link KmetaProducer}, sharing
 * one kmeta instance, send at a steady rate (round-robin over the partitions) through proxies that count the Metadata
 * requests the brokers receive; midway the leader of partition 0 stops cleanly and comes back, narrated as
 * {@code demo} narrates it ({@link DemoFailover}: the stop, the leader move kmeta saw, sends continuing on the new
 * leader, the restart). The summary prints those requests. Exit code 0 iff every record sent was acknowledged.
 *
 * <p>Not thread-safe: one instance per invocation, run by the demo's thread (plus its load thread).
 */
final class DemoKafkaProducers {
    private static final short METADATA = 3;
    private static final int PRODUCERS = 3;

    private final KafkaCluster cluster;
    private final String topic;
    private final int partitions;
    private final int rate;
    private final Duration duration;
    private final PrintWriter out;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean running = true;
    private volatile int lastLeaderOfPartition0 = -1;
    private volatile KafkaMetadata shared;

    DemoKafkaProducers(KafkaCluster cluster, String topic, int partitions, int rate, Duration duration,
                       PrintWriter out) {
        this.cluster = cluster;
        this.topic = topic;
        this.partitions = partitions;
        this.rate = rate;
        this.duration = duration;
        this.out = out;
    }

    private Map<String, Object> props(int i) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.proxiedBootstrapServers());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "kmeta-demo-producer-" + i);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return p;
    }

    int run() throws Exception {
        for (int id : cluster.brokerIds()) {
            cluster.proxy(id).resetCounters();
        }
        List<Producer<String, String>> producers = new ArrayList<>();
        Thread load = new Thread(() -> send(producers), "kmeta-demo-load");
        load.setDaemon(true);
        DemoFailover failover = null;
        try {
            for (int i = 1; i <= PRODUCERS; i++) {
                producers.add(KmetaProducer.create(props(i)));
            }
            shared = KafkaMetadata.shared(props(0)); // a handle to the producers' instance, for its counters
            failover = new DemoFailover(cluster, sends(), "applied by kmeta", topic, out);
            print("%d KafkaProducers (KmetaProducer.create) share one kmeta instance; sending %d records/s over them",
                    PRODUCERS, rate);
            load.start();
            long seconds = duration.toSeconds();
            long startNs = System.nanoTime();
            for (long second = 1; second <= seconds; second++) {
                long waitNs = startNs + TimeUnit.SECONDS.toNanos(second) - System.nanoTime();
                if (waitNs > 0) {
                    LockSupport.parkNanos(waitNs);
                }
                print("[%3ds] v%d | acked %6d of %6d, failed %d | Metadata requests the brokers received %d",
                        second, shared.fetch().version(), acked.get(), sent.get(), failed.get(), metadataRequests());
                if (second == seconds / 2) {
                    failover.stopLeader();
                }
                failover.check();
            }
        } finally {
            running = false;
            load.join(TimeUnit.MINUTES.toMillis(2));
            producers.forEach(Producer::close); // flushes: every record acked or failed
            if (failover != null) {
                failover.finish();
            }
            if (shared == null) {
                return 1;
            }
        }
        try {
            long requests = metadataRequests();
            long kmetaSent = shared.stats().requestsSent();
            // Received <= kmeta sent: the producers' own clients sent none (fewer: one died with the stopped broker)
            print("summary: %d KafkaProducers on one kmeta instance: sent %d, acked %d, failed %d; Metadata requests "
                            + "the brokers received: %d (kmeta sent %d; %s); leader hints applied by kmeta %d",
                    PRODUCERS, sent.get(), acked.get(), failed.get(), requests, kmetaSent,
                    requests <= kmetaSent ? "the producers' own clients none"
                            : (requests - kmetaSent) + " more than kmeta sent", shared.stats().leaderHintsApplied());
            print("partition 0's leader: broker %d -> broker %d; sends continued after the move: %s",
                    failover.oldLeader(), failover.newLeader(), failover.sendsContinued() ? "yes" : "no");
        } finally {
            shared.close();
        }
        boolean allAcked = sent.get() > 0 && acked.get() == sent.get();
        print(allAcked ? "OK: every record was acknowledged"
                : "FAILED: " + (sent.get() - acked.get()) + " record(s) not acknowledged");
        return allAcked ? 0 : 1;
    }

    /** What the failover narrates from: the shared instance, the counts, who acknowledged partition 0. */
    private DemoFailover.Sends sends() {
        return new DemoFailover.Sends() {
            @Override
            public KafkaMetadata metadata() {
                return shared;
            }

            @Override
            public long acked() {
                return acked.get();
            }

            @Override
            public long failed() {
                return failed.get();
            }

            @Override
            public long leaderHints() {
                return shared.stats().leaderHintsApplied();
            }

            @Override
            public int lastLeaderOfPartition0() {
                return lastLeaderOfPartition0;
            }
        };
    }

    private void send(List<Producer<String, String>> producers) {
        long periodNs = TimeUnit.SECONDS.toNanos(1) / rate;
        long nextNs = System.nanoTime();
        for (long i = 0; running; i++) {
            Producer<String, String> producer = producers.get((int) (i % producers.size()));
            sent.incrementAndGet();
            int partition = (int) (i % partitions);
            producer.send(new ProducerRecord<>(topic, partition, null, "record-" + i), (md, e) -> {
                if (e == null && partition == 0) {
                    // KafkaProducer does not say which broker acknowledged: the leader kmeta's snapshot names now
                    Node leader = shared.fetch().leader(topic, 0);
                    lastLeaderOfPartition0 = leader == null ? -1 : leader.id();
                }
                (e == null ? acked : failed).incrementAndGet();
            });
            nextNs += periodNs;
            long waitNs = nextNs - System.nanoTime();
            if (waitNs > 0) {
                LockSupport.parkNanos(waitNs);
            }
        }
    }

    private long metadataRequests() {
        long n = 0;
        for (int id : cluster.brokerIds()) {
            n += cluster.proxy(id).requestCount(METADATA);
        }
        return n;
    }

    private void print(String format, Object... args) {
        out.println(String.format(format, args));
        out.flush();
    }
}
