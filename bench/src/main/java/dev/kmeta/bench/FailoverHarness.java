package dev.kmeta.bench;

import static dev.kmeta.bench.Stats.max;
import static dev.kmeta.bench.Stats.median;
import static dev.kmeta.bench.Stats.min;
import dev.kmeta.examples.ExampleProducer;
import dev.kmeta.testkit.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import dev.kmeta.producer.KmetaProducer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * P8, side by side (a plain {@code main} on a real in-process 3-broker cluster from testkit): a clean stop of
 * partition 0's leader under load. Per run, a new topic ({@code --partitions} partitions, 6 by default, RF 3,
 * {@code min.insync.replicas} 2); three producers send to it at the same time, each {@code --rate} records/s (500)
 * round robin over the partitions, acks=all:
 * <ul>
 *   <li>{@code kafka-clients}: a {@code KafkaProducer} (defaults, so idempotence on, plus {@code acks=all},
 *       {@code linger.ms=0});</li>
 *   <li>{@code kmeta}: kmeta's example producer {@code dev.kmeta.examples.ExampleProducer} (acks=all by default,
 *       no linger);</li>
 *   <li>{@code kmeta KafkaProducer}: Apache Kafka's {@code KafkaProducer} with kmeta as its metadata
 *       ({@code KmetaProducer.create}, the same settings as the {@code kafka-clients} one).</li>
 * </ul>
 * After {@code --warmup-ms} (3,000) the harness stops partition 0's leader ({@code KafkaCluster.stopBroker}: a
 * controlled shutdown), keeps sending for {@code --after-ms} (5,000), lets the records in flight complete, restarts the
 * broker and goes on to the next run.
 *
 * <p>Measured per producer and partition, from the completion times of its successful acks: the <b>outage</b> is the
 * longest gap between two consecutive acks of that partition from 1 s before the stop to the end of the run (at
 * {@code rate / partitions} records per partition and second, a writable partition shows gaps of a few ms to tens of
 * ms). Partition 0's outage is "time until partition 0 is writable again". The <b>control</b> partitions are those
 * led, before and after the stop, by partition 0's new leader: their outage is the stall the brokers impose on
 * everything that leader leads (ISR shrink, the controller's work), not the client's doing. The <b>excess</b> is
 * partition 0's outage minus the median outage of the control partitions. The producers' control stalls differ a
 * little (each sees the brokers through its own client), so the excess is also given over the smaller of the two in
 * the run (a common control). The excess splits into how much earlier partition 0's gap began than the control
 * partition's (the old leader holding its last batch) and how much later it ended (the client and the new leader).
 * For the example producer, its own timeline of partition 0 ({@code ExampleProducer.failovers()}) is printed under
 * each run, and its client-side share (the time between each failed attempt's answer and the next attempt) goes
 * into the summary. The summary gives the median over {@code --runs} (9) of each, and the ratio kmeta excess /
 * kafka-clients excess.
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.FailoverHarness --runs 15 > bench/results/failover.txt
 * }</pre>
 * Options: {@code --runs N} (9), {@code --partitions N} (6), {@code --rate N} (500), {@code --warmup-ms N},
 * {@code --after-ms N}. About 25-40 s per run.
 *
 * <p>Not thread-safe; a program.
 */
public final class FailoverHarness {
    private static final String KAFKA = Wire.IMPL_KAFKA;
    private static final String KMETA = Wire.IMPL_KMETA;
    private static final String KMETA_PRODUCER = "kmeta KafkaProducer";

    private FailoverHarness() {
    }

    /** One acknowledged (or failed) record. */
    record Sent(int partition, long sentNs, long doneNs, boolean ok) {
    }

    /** The longest gap between two consecutive acks of a partition: the ack before it and the ack after it. */
    record Gap(long fromNs, long toNs) {
        static final Gap NONE = new Gap(0, 0);

        double ms() {
            return (toNs - fromNs) / 1e6;
        }
    }

    /**
     * What one producer saw in one run. {@code stopLeadMs}: how much earlier partition 0's acks stopped than the
     * median control partition's (the old leader's part); {@code resumeLagMs}: how much later they resumed (what the
     * client, and the new leader, add). The excess over the producer's own control is their sum.
     */
    record Outcome(double p0OutageMs, double controlStallMs, int controlPartitions, long acked, long failed,
                   double commonControlMs, double stopLeadMs, double resumeLagMs, double clientShareMs) {
        double excessMs() {
            return p0OutageMs - controlStallMs;
        }

        /** Over the smaller of the two producers' control stalls in the run: the brokers' part, seen by both. */
        double excessOverCommonMs() {
            return p0OutageMs - commonControlMs;
        }

        Outcome withCommonControl(double ms) {
            return new Outcome(p0OutageMs, controlStallMs, controlPartitions, acked, failed, ms, stopLeadMs,
                    resumeLagMs, clientShareMs);
        }

        /** With the producer's own measure of its share: from seeing p0's failure to resending to the new leader. */
        Outcome withClientShare(double ms) {
            return new Outcome(p0OutageMs, controlStallMs, controlPartitions, acked, failed, commonControlMs,
                    stopLeadMs, resumeLagMs, ms);
        }
    }

    /** A producer as the pacing thread sees it. */
    interface Sender extends AutoCloseable {
        void send(String topic, int partition, byte[] value, ConcurrentLinkedQueue<Sent> log);

        /** The producer's own timeline of partition 0's failovers in this topic (the example producer only). */
        default List<ExampleProducer.Failover> failovers(String topic) {
            return List.of();
        }

        @Override
        void close();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args, Map.of("runs", "9", "partitions", "6", "rate", "500",
                "warmup-ms", "3000", "after-ms", "5000"));
        int runs = Args.intOpt(opts, "runs");
        int partitions = Args.intOpt(opts, "partitions");
        int rate = Args.intOpt(opts, "rate");
        int warmupMs = Args.intOpt(opts, "warmup-ms");
        int afterMs = Args.intOpt(opts, "after-ms");
        System.out.printf(Locale.ROOT, "FailoverHarness: %d runs, %d partitions, RF 3, min ISR 2, %d records/s per"
                + " producer, acks=all, %s%n", runs, partitions, rate, Args.jvm());
        Path storage = Files.createTempDirectory("kmeta-failover-");
        Map<String, List<Outcome>> outcomes = new LinkedHashMap<>();
        outcomes.put(KAFKA, new ArrayList<>());
        outcomes.put(KMETA, new ArrayList<>());
        outcomes.put(KMETA_PRODUCER, new ArrayList<>());
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).storageRoot(storage).build().start()) {
            String bootstrap = cluster.bootstrapServers();
            try (Sender kafka = kafkaProducer(bootstrap, false); Sender kmeta = exampleProducer(bootstrap);
                 Sender kmetaProducer = kafkaProducer(bootstrap, true)) {
                for (int run = 1; run <= runs; run++) {
                    Map<String, Sender> senders = new LinkedHashMap<>();
                    senders.put(KAFKA, kafka);
                    senders.put(KMETA, kmeta);
                    senders.put(KMETA_PRODUCER, kmetaProducer);
                    Map<String, Outcome> r = run(cluster, run, partitions, rate, warmupMs, afterMs, senders);
                    r.forEach((impl, o) -> outcomes.get(impl).add(o));
                }
            }
        } finally {
            Files.deleteIfExists(storage);
        }
        System.out.println();
        System.out.println("| producer | p0 unwritable (median, min-max) | control stall (median) | excess over control"
                + " (median, min-max) | excess over the run's smaller control stall (median) | p0 stopped earlier than"
                + " control (median) | p0 resumed later than control (median, min-max) | client's own share: failed"
                + " answer -> next attempt, summed (median, min-max) | records acked / failed (all runs) |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Map.Entry<String, List<Outcome>> e : outcomes.entrySet()) {
            List<Outcome> o = e.getValue();
            double client = median(o, Outcome::clientShareMs);
            System.out.printf(Locale.ROOT, "| %s | %.0f ms (%.0f-%.0f) | %.0f ms | **%.0f ms** (%.0f-%.0f) | %.0f ms"
                            + " | %.0f ms | %.0f ms (%.0f-%.0f) | %s | %d / %d |%n",
                    e.getKey(), median(o, Outcome::p0OutageMs), min(o, Outcome::p0OutageMs),
                    max(o, Outcome::p0OutageMs), median(o, Outcome::controlStallMs), median(o, Outcome::excessMs),
                    min(o, Outcome::excessMs), max(o, Outcome::excessMs), median(o, Outcome::excessOverCommonMs),
                    median(o, Outcome::stopLeadMs), median(o, Outcome::resumeLagMs), min(o, Outcome::resumeLagMs),
                    max(o, Outcome::resumeLagMs), Double.isNaN(client) ? "not measured" : String.format(Locale.ROOT,
                            "%.1f ms (%.1f-%.1f)", client, min(o, Outcome::clientShareMs),
                            max(o, Outcome::clientShareMs)),
                    o.stream().mapToLong(Outcome::acked).sum(), o.stream().mapToLong(Outcome::failed).sum());
        }
        double kafkaExcess = median(outcomes.get(KAFKA), Outcome::excessMs);
        double kmetaExcess = median(outcomes.get(KMETA), Outcome::excessMs);
        System.out.printf(Locale.ROOT, "median excess kmeta / kafka-clients: %.2f (target <= 0.5); over the common"
                        + " control: %.2f; kmeta KafkaProducer / kafka-clients: %.2f; load at the end %s%n",
                kmetaExcess / kafkaExcess, median(outcomes.get(KMETA), Outcome::excessOverCommonMs)
                        / median(outcomes.get(KAFKA), Outcome::excessOverCommonMs),
                median(outcomes.get(KMETA_PRODUCER), Outcome::excessMs) / kafkaExcess, Args.load());
    }

    private static Map<String, Outcome> run(KafkaCluster cluster, int run, int partitions, int rate, int warmupMs,
                                            int afterMs, Map<String, Sender> senders) throws Exception {
        String topic = "failover-" + run;
        cluster.createTopic(topic, partitions, 3, Map.of("min.insync.replicas", "2"));
        int[] before = leaders(cluster, topic, partitions);
        Map<String, ConcurrentLinkedQueue<Sent>> logs = new LinkedHashMap<>();
        ScheduledExecutorService pacers = Executors.newScheduledThreadPool(senders.size(), r -> {
            Thread t = new Thread(r, "failover-pacer");
            t.setDaemon(true);
            return t;
        });
        long periodNs = TimeUnit.SECONDS.toNanos(1) / rate;
        byte[] value = new byte[100];
        for (Map.Entry<String, Sender> s : senders.entrySet()) {
            ConcurrentLinkedQueue<Sent> log = new ConcurrentLinkedQueue<>();
            logs.put(s.getKey(), log);
            AtomicLong n = new AtomicLong();
            pacers.scheduleAtFixedRate(() -> s.getValue().send(topic, (int) (n.getAndIncrement() % partitions), value,
                    log), 0, periodNs, TimeUnit.NANOSECONDS);
        }
        Thread.sleep(warmupMs);
        int stopped = before[0];
        long stopNs = System.nanoTime();
        cluster.stopBroker(stopped);
        long stoppedNs = System.nanoTime();
        Thread.sleep(afterMs);
        pacers.shutdown();
        if (!pacers.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("a send blocked for 30 s");
        }
        int[] after = leaders(cluster, topic, partitions);
        awaitSettled(logs);
        long endNs = System.nanoTime();
        List<Integer> control = new ArrayList<>();
        for (int p = 1; p < partitions; p++) {
            if (before[p] == after[0] && after[p] == after[0]) {
                control.add(p);
            }
        }
        Map<String, Outcome> out = new LinkedHashMap<>();
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "run %d: stopped broker %d (leader of p0) in %d ms; p0's new leader %d; control partitions %s;",
                run, stopped, TimeUnit.NANOSECONDS.toMillis(stoppedNs - stopNs), after[0], control));
        for (Map.Entry<String, ConcurrentLinkedQueue<Sent>> e : logs.entrySet()) {
            Outcome o = outcome(new ArrayList<>(e.getValue()), control, stopNs - TimeUnit.SECONDS.toNanos(1), endNs);
            out.put(e.getKey(), o);
            line.append(String.format(Locale.ROOT, " %s: p0 %.0f ms, control %.0f ms, excess %.0f ms (p0 stopped"
                    + " %.0f ms earlier, resumed %.0f ms later) (%d acked, %d failed);", e.getKey(), o.p0OutageMs(),
                    o.controlStallMs(), o.excessMs(), o.stopLeadMs(), o.resumeLagMs(), o.acked(), o.failed()));
        }
        double common = out.values().stream().mapToDouble(Outcome::controlStallMs).min().orElse(Double.NaN);
        out.replaceAll((impl, o) -> o.withCommonControl(common));
        System.out.println(line.append(" load ").append(Args.load()));
        for (Map.Entry<String, Sender> s : senders.entrySet()) {
            ExampleProducer.Failover longest = null;
            for (ExampleProducer.Failover f : s.getValue().failovers(topic)) {
                System.out.println("  " + s.getKey() + " p0 timeline: " + describe(f));
                if (longest == null || f.ackedNs() - f.lastAckNs() > longest.ackedNs() - longest.lastAckNs()) {
                    longest = f;
                }
            }
            if (longest != null) {
                double clientMs = longest.clientWaitNs() / 1e6;
                out.put(s.getKey(), out.get(s.getKey()).withClientShare(clientMs));
            }
        }
        cluster.startBroker(stopped);
        return out;
    }

    /** One failover as the producer itself saw it, in ms. */
    static String describe(ExampleProducer.Failover f) {
        return String.format(Locale.ROOT, "%s, %d -> %d; last ack -> failure seen %.1f ms; failure -> new leader in"
                        + " snapshot (%s) %s; -> resent %s; first failure -> last resend %.1f ms, of which the client's"
                        + " (no request in flight) %.1f ms in %d failed attempt(s); resent -> acked %.1f ms; last ack"
                        + " -> acked %.1f ms | %s", f.cause(), f.oldLeaderId(), f.newLeaderId(),
                ms(f.failedNs() - f.lastAckNs()), f.learnedFrom(),
                f.newLeaderSeenNs() < 0 ? "-" : String.format(Locale.ROOT, "%.1f ms",
                        ms(f.newLeaderSeenNs() - f.failedNs())),
                f.newLeaderSeenNs() < 0 ? "-" : String.format(Locale.ROOT, "%.1f ms",
                        ms(f.resentNs() - f.newLeaderSeenNs())),
                ms(f.resentNs() - f.failedNs()), ms(f.clientWaitNs()), f.attempts(), ms(f.ackedNs() - f.resentNs()),
                ms(f.ackedNs() - f.lastAckNs()),
                f.timeline());
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }

    /** Waits (at most 130 s: past the delivery timeout) until every record sent has its outcome. */
    private static void awaitSettled(Map<String, ConcurrentLinkedQueue<Sent>> logs) throws InterruptedException {
        // Records complete asynchronously; each producer is flushed by waiting for its log to stop growing.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(130);
        int last = -1;
        int stable = 0;
        while (System.nanoTime() < end && stable < 5) {
            int size = logs.values().stream().mapToInt(ConcurrentLinkedQueue::size).sum();
            stable = size == last ? stable + 1 : 0;
            last = size;
            Thread.sleep(100);
        }
    }

    static Outcome outcome(List<Sent> sent, List<Integer> control, long fromNs, long toNs) {
        long acked = sent.stream().filter(Sent::ok).count();
        long failed = sent.size() - acked;
        Gap p0 = longestGap(sent, 0, fromNs, toNs);
        List<Gap> stalls = new ArrayList<>();
        for (int p : control) {
            stalls.add(longestGap(sent, p, fromNs, toNs));
        }
        stalls.sort(java.util.Comparator.comparingDouble(Gap::ms));
        if (stalls.isEmpty()) {
            return new Outcome(p0.ms(), Double.NaN, 0, acked, failed, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN);
        }
        Gap stall = stalls.get(stalls.size() / 2);
        return new Outcome(p0.ms(), stall.ms(), control.size(), acked, failed, Double.NaN,
                (stall.fromNs() - p0.fromNs()) / 1e6, (p0.toNs() - stall.toNs()) / 1e6, Double.NaN);
    }

    /** The longest time between two consecutive successful acks of {@code partition} within the window. */
    static double longestGapMs(List<Sent> sent, int partition, long fromNs, long toNs) {
        return longestGap(sent, partition, fromNs, toNs).ms();
    }

    static Gap longestGap(List<Sent> sent, int partition, long fromNs, long toNs) {
        long[] done = sent.stream().filter(s -> s.ok() && s.partition() == partition && s.doneNs() >= fromNs
                && s.doneNs() <= toNs).mapToLong(Sent::doneNs).sorted().toArray();
        Gap longest = Gap.NONE;
        for (int i = 1; i < done.length; i++) {
            if (done[i] - done[i - 1] > longest.toNs() - longest.fromNs()) {
                longest = new Gap(done[i - 1], done[i]);
            }
        }
        return longest;
    }

    private static int[] leaders(KafkaCluster cluster, String topic, int partitions) throws Exception {
        TopicDescription d = cluster.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                .get(topic);
        int[] leaders = new int[partitions];
        for (TopicPartitionInfo info : d.partitions()) {
            leaders[info.partition()] = info.leader() == null ? -1 : info.leader().id();
        }
        return leaders;
    }

    /** A KafkaProducer; {@code onKmeta}: made by {@code KmetaProducer.create}, kmeta as its metadata. */
    static Sender kafkaProducer(String bootstrap, boolean onKmeta) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", onKmeta ? "failover-kmeta-kafka-producer" : "failover-kafka-clients");
        p.put("acks", "all");
        p.put("linger.ms", 0);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        Producer<byte[], byte[]> producer = onKmeta ? KmetaProducer.create(p) : new KafkaProducer<>(p);
        return new Sender() {
            @Override
            public void send(String topic, int partition, byte[] value, ConcurrentLinkedQueue<Sent> log) {
                long sentNs = System.nanoTime();
                try {
                    producer.send(new ProducerRecord<>(topic, partition, null, value), (metadata, error) ->
                            log.add(new Sent(partition, sentNs, System.nanoTime(), error == null)));
                } catch (RuntimeException e) { // a pacer task that throws is never run again
                    log.add(new Sent(partition, sentNs, System.nanoTime(), false));
                }
            }

            @Override
            public void close() {
                producer.close(Duration.ofSeconds(10));
            }
        };
    }

    static Sender exampleProducer(String bootstrap) {
        ExampleProducer producer = ExampleProducer.create(Map.of("bootstrap.servers", bootstrap,
                "client.id", "failover-kmeta", "acks", "all"));
        return new Sender() {
            @Override
            public void send(String topic, int partition, byte[] value, ConcurrentLinkedQueue<Sent> log) {
                long sentNs = System.nanoTime();
                try {
                    producer.send(topic, partition, null, value).whenComplete(
                            (ack, error) -> log.add(new Sent(partition, sentNs, System.nanoTime(), error == null)));
                } catch (RuntimeException e) { // a pacer task that throws is never run again
                    log.add(new Sent(partition, sentNs, System.nanoTime(), false));
                }
            }

            @Override
            public List<ExampleProducer.Failover> failovers(String topic) {
                return producer.failovers().stream().filter(f -> f.topic().equals(topic) && f.partition() == 0)
                        .toList();
            }

            @Override
            public void close() {
                producer.close();
            }
        };
    }

}
