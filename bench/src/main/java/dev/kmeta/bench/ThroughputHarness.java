package dev.kmeta.bench;

import static dev.kmeta.bench.RealBroker.BROKER_JVM;
import static dev.kmeta.bench.RealBroker.KMETA;
import static dev.kmeta.bench.RealBroker.STOCK;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * P10, side by side (a plain {@code main} against one real Kafka 4.4 broker from testkit, in a child JVM): producer
 * throughput and this process's CPU per record. One topic of {@code --partitions} (12) partitions, RF 1; threads send
 * keyed {@code --value-bytes} (1,024) records in a closed loop (each {@code send()} returns once the record is in the
 * accumulator; it blocks only when {@code buffer.memory} is full), acks=all, {@code linger.ms} {@code --linger-ms}
 * (5), Kafka's defaults otherwise. After {@code --warmup-seconds} (5) the window of {@code --seconds} (20) opens:
 * records acknowledged in it per second, and process CPU time (OperatingSystemMXBean, every thread of this JVM: the
 * sending threads, the producers' network threads, kmeta's sender thread, JIT, GC, and the broker's KRaft controller,
 * which is idle then; the broker itself runs in its child JVM) divided by those records. The idle CPU of the process
 * (controller, testkit, JVM) is measured for 3 s before the first run and printed, so it can be taken off.
 * <ul>
 *   <li>{@code a}: one producer, {@code --threads} (8) threads;</li>
 *   <li>{@code b}: {@code --producers} (4) producers x {@code --threads-per-producer} (2) threads: 4 stock
 *       {@code KafkaProducer}s, or 4 {@code KmetaProducer.create} on ONE shared kmeta instance whose snapshot also
 *       holds {@code --other-partitions} (20,000) partitions of other topics (100 partitions each, created once on the
 *       broker; a fifth handle on the shared instance, {@code KafkaMetadata.shared}, prefetches them before the
 *       window and holds them until the run ends). The stock producers know only their own topic.</li>
 * </ul>
 * Each mode runs {@code --runs} (3) times per route, stock and kmeta alternating (run 1 stock first, run 2 kmeta
 * first, ...), a new producer each time, warmed with one record per partition.
 *
 * <pre>{@code
 * java -Xms1g -Xmx1g -cp bench/target/benchmarks.jar dev.kmeta.bench.ThroughputHarness > bench/results/p10.txt
 * }</pre>
 * Options: {@code --mode a|b|both} (both), {@code --runs N} (3), {@code --seconds N} (20),
 * {@code --warmup-seconds N} (5), {@code --threads N} (8), {@code --producers N} (4),
 * {@code --threads-per-producer N} (2), {@code --partitions N} (12), {@code --other-partitions N} (20000),
 * {@code --value-bytes N} (1024), {@code --linger-ms N} (5), {@code --impl both|stock|kmeta}, {@code --broker-jvm}
 * (the child broker's JVM options, {@code "-Xmx1g -XX:+UseG1GC"}). About 35 s per run;
 * the program exits (closing the broker) if it runs longer than twice its estimate plus 5 minutes. Issue 28 asks
 * for 100,000 other partitions; one testkit broker in a child JVM created 20,000 in 24 s here (load ~14) and its
 * files took ~1.5 minutes to delete at the end (with 10,000 partitions it held ~3,900 file descriptors and ~8,000
 * memory maps, against limits of 20,000 and 65,530 here).
 *
 * <p>Not thread-safe; a program.
 */
public final class ThroughputHarness {
    static final String TOPIC = "p10-throughput";

    private ThroughputHarness() {
    }

    /** The settings of a series. */
    record Settings(int seconds, int warmupSeconds, int partitions, int valueBytes, int lingerMs) {
    }

    /** One run's outcome. */
    record Run(String mode, int run, String impl, int producers, int threadsEach, long acked, long failed,
               double seconds, long cpuNs, long gcMs, long snapshotChanges, long kmetaTopics, String load) {
        double recordsPerSecond() {
            return acked / seconds;
        }

        double cpuUsPerRecord() {
            return acked == 0 ? Double.NaN : cpuNs / 1e3 / acked;
        }

        String line() {
            return String.format(Locale.ROOT, "mode %s run %d %s (%d producer(s) x %d threads): %.0f records/s"
                            + " (%d acked, %d failed in %.1f s), process CPU %.1f us/record (%.2f cores), GC %d ms;"
                            + " kmeta snapshot changes %s, topics in kmeta %s; load %s", mode, run, impl, producers,
                    threadsEach, recordsPerSecond(), acked, failed, seconds, cpuUsPerRecord(), cpuNs / 1e9 / seconds,
                    gcMs, snapshotChanges < 0 ? "-" : Long.toString(snapshotChanges),
                    kmetaTopics < 0 ? "-" : Long.toString(kmetaTopics), load);
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("mode", "both");
        defaults.put("runs", "3");
        defaults.put("seconds", "20");
        defaults.put("warmup-seconds", "5");
        defaults.put("threads", "8");
        defaults.put("producers", "4");
        defaults.put("threads-per-producer", "2");
        defaults.put("partitions", "12");
        defaults.put("other-partitions", "20000");
        defaults.put("value-bytes", "1024");
        defaults.put("linger-ms", "5");
        defaults.put("impl", "both");
        defaults.put("broker-jvm", BROKER_JVM);
        Map<String, String> opts = Args.parse(args, defaults);
        String mode = opts.get("mode");
        if (!List.of("a", "b", "both").contains(mode)) {
            throw new IllegalArgumentException("--mode must be a, b or both: " + mode);
        }
        int runs = Args.intOpt(opts, "runs");
        int threads = Args.intOpt(opts, "threads");
        int producers = Args.intOpt(opts, "producers");
        int threadsEach = Args.intOpt(opts, "threads-per-producer");
        int other = Args.intOpt(opts, "other-partitions");
        Settings s = new Settings(Args.intOpt(opts, "seconds"), Args.intOpt(opts, "warmup-seconds"),
                Args.intOpt(opts, "partitions"), Args.intOpt(opts, "value-bytes"), Args.intOpt(opts, "linger-ms"));
        String impl = opts.get("impl");
        RealBroker.impls(impl, 1); // checks the option
        boolean doA = !mode.equals("b");
        boolean doB = !mode.equals("a");
        int runsInAll = runs * (impl.equals("both") ? 2 : 1) * ((doA ? 1 : 0) + (doB ? 1 : 0));
        long estimateS = 120 + (long) runsInAll * (s.seconds() + s.warmupSeconds() + 15);
        RealBroker.watchdog("ThroughputHarness", TimeUnit.SECONDS.toMillis(2 * estimateS + 300));
        System.out.printf(Locale.ROOT, "ThroughputHarness (P10): mode %s, %d runs per route, topic of %d partitions,"
                        + " keyed %d B records, acks=all, linger.ms %d, %d s measured after %d s; a: 1 producer x %d"
                        + " threads; b: %d producers x %d threads, kmeta's shared instance also holding %d partitions"
                        + " of other topics; broker JVM %s; %s%n", mode, runs, s.partitions(), s.valueBytes(), s.lingerMs(),
                s.seconds(), s.warmupSeconds(), threads, producers, threadsEach, other, opts.get("broker-jvm"), Args.jvm());
        Path storage = Files.createTempDirectory("kmeta-p10-");
        List<Run> results = new ArrayList<>();
        try (KafkaCluster cluster = RealBroker.startCluster(storage, opts.get("broker-jvm"))) {
            // Old segments are deleted (retention checked every 5 s), so that minutes of 1 KB records stay small.
            RealBroker.createTopics(cluster.admin(), List.of(TOPIC), s.partitions(), Map.of("retention.bytes",
                    "67108864", "segment.bytes", "16777216"), 60_000);
            List<String> otherTopics = new ArrayList<>();
            if (doB && other > 0) {
                for (int left = other, t = 0; left > 0; left -= 100, t++) {
                    otherTopics.add(String.format(Locale.ROOT, "p10-other-%04d", t));
                }
                long createNs = System.nanoTime();
                // The last topic takes the remainder: created apart when other is not a multiple of 100.
                int last = other % 100;
                List<String> full = last == 0 ? otherTopics : otherTopics.subList(0, otherTopics.size() - 1);
                RealBroker.createTopics(cluster.admin(), full, 100, Map.of(), 900_000);
                if (last != 0) {
                    RealBroker.createTopics(cluster.admin(), otherTopics.subList(otherTopics.size() - 1,
                            otherTopics.size()), last, Map.of(), 60_000);
                }
                System.out.printf(Locale.ROOT, "created %d partitions of %d other topics in %d ms; load %s%n", other,
                        otherTopics.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - createNs),
                        Args.load());
            }
            System.out.printf(Locale.ROOT, "idle process CPU (broker's controller, testkit, JVM): %.3f cores%n",
                    idleCores());
            for (int run = 1; run <= runs; run++) {
                for (String which : RealBroker.impls(impl, run)) {
                    if (doA) {
                        Run r = run(cluster, s, "a", run, which, 1, threads, List.of());
                        System.out.println(r.line());
                        results.add(r);
                    }
                }
                for (String which : RealBroker.impls(impl, run)) {
                    if (doB) {
                        Run r = run(cluster, s, "b", run, which, producers, threadsEach, otherTopics);
                        System.out.println(r.line());
                        results.add(r);
                    }
                }
            }
        } finally {
            SendUnderChurnHarness.deleteQuietly(storage);
        }
        summary(results);
    }

    private static double idleCores() {
        long cpu0 = RealBroker.processCpuNs();
        long t0 = System.nanoTime();
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(3)); // the measured idle period
        return (RealBroker.processCpuNs() - cpu0) / (double) (System.nanoTime() - t0);
    }

    private static Run run(KafkaCluster cluster, Settings s, String mode, int run, String impl, int producerCount,
                           int threadsEach, List<String> otherTopics) throws Exception {
        System.gc(); // each run starts from a collected heap, whatever the one before left
        List<Producer<byte[], byte[]>> producers = new ArrayList<>();
        KafkaMetadata others = null;
        LongAdder acked = new LongAdder();
        LongAdder failed = new LongAdder();
        AtomicReference<Exception> firstError = new AtomicReference<>();
        Callback callback = (metadata, error) -> {
            (error == null ? acked : failed).increment();
            if (error != null) {
                firstError.compareAndSet(null, error);
            }
        };
        byte[] value = new byte[s.valueBytes()];
        List<Thread> threads = new ArrayList<>();
        try {
            Map<String, Object> extra = Map.of("acks", "all", "linger.ms", s.lingerMs());
            for (int i = 0; i < producerCount; i++) {
                producers.add(RealBroker.producer(impl, RealBroker.producerProps(cluster.bootstrapServers(),
                        "p10" + mode + "-" + impl + "-r" + run + "-p" + i, extra)));
            }
            for (Producer<byte[], byte[]> p : producers) { // warmed on every partition
                for (int partition = 0; partition < s.partitions(); partition++) {
                    p.send(new ProducerRecord<>(TOPIC, partition, null, value), callback);
                }
                p.flush();
            }
            if (impl.equals(KMETA) && !otherTopics.isEmpty()) {
                // A fifth user of the producers' shared instance (same bootstrap: same instance) subscribes the
                // other topics, so the snapshot the producers' view is built from holds them.
                others = KafkaMetadata.shared(Map.of("bootstrap.servers", cluster.bootstrapServers(),
                        "client.id", "p10b-others"));
                var result = others.prefetch(otherTopics, others.newDeadline(Duration.ofSeconds(120)));
                if (!result.missing().isEmpty()) {
                    System.out.println("  prefetch: " + result.missing().size() + " other topics missing, e.g. "
                            + result.missing().entrySet().iterator().next());
                }
                if (RealBroker.kmetaVersions().size() != 1) {
                    throw new IllegalStateException("expected one shared kmeta instance, found "
                            + RealBroker.kmetaVersions().size());
                }
            }
            long startNs = System.nanoTime();
            long measureFromNs = startNs + TimeUnit.SECONDS.toNanos(s.warmupSeconds());
            long endNs = measureFromNs + TimeUnit.SECONDS.toNanos(s.seconds());
            for (int i = 0; i < producerCount; i++) {
                Producer<byte[], byte[]> producer = producers.get(i);
                for (int t = 0; t < threadsEach; t++) {
                    Thread thread = new Thread(() -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        while (System.nanoTime() < endNs && !Thread.currentThread().isInterrupted()) {
                            byte[] key = new byte[8];
                            random.nextBytes(key);
                            try {
                                producer.send(new ProducerRecord<>(TOPIC, key, value), callback);
                            } catch (RuntimeException e) {
                                failed.increment();
                                firstError.compareAndSet(null, e);
                            }
                        }
                    }, "p10-" + mode + "-p" + i + "-t" + t);
                    thread.setDaemon(true);
                    threads.add(thread);
                }
            }
            threads.forEach(Thread::start);
            LockSupport.parkNanos(Math.max(0, measureFromNs - System.nanoTime())); // until the window opens
            long acked0 = acked.sum();
            long cpu0 = RealBroker.processCpuNs();
            long gc0 = RealBroker.gcMs();
            long version0 = RealBroker.kmetaVersion();
            long t0 = System.nanoTime();
            LockSupport.parkNanos(Math.max(0, endNs - System.nanoTime())); // until it closes
            long acked1 = acked.sum();
            long cpu1 = RealBroker.processCpuNs();
            long gc1 = RealBroker.gcMs();
            long version1 = RealBroker.kmetaVersion();
            long t1 = System.nanoTime();
            List<Long> topics = RealBroker.kmetaSubscribedTopics();
            if (!RealBroker.joinAll(threads, 60_000)) {
                System.out.println("  a sending thread was still running 60 s after the end (interrupted)");
            }
            for (Producer<byte[], byte[]> p : producers) {
                p.flush();
            }
            if (firstError.get() != null) {
                System.out.println("  " + impl + " mode " + mode + " run " + run + ": " + failed.sum()
                        + " records failed, first: " + firstError.get());
            }
            boolean kmeta = impl.equals(KMETA);
            return new Run(mode, run, impl, producerCount, threadsEach, acked1 - acked0, failed.sum(),
                    (t1 - t0) / 1e9, cpu1 - cpu0, gc1 - gc0,
                    kmeta && version0 >= 0 && version1 >= 0 ? version1 - version0 : -1,
                    kmeta && topics.size() == 1 ? topics.get(0) : -1, Args.load());
        } finally {
            threads.forEach(Thread::interrupt);
            RealBroker.joinAll(threads, 10_000);
            for (Producer<byte[], byte[]> p : producers) {
                p.close(Duration.ofSeconds(30));
            }
            if (others != null) {
                others.close();
            }
        }
    }

    private static void summary(List<Run> results) {
        System.out.println();
        System.out.println("| mode | route | records/s per run | median | process CPU us/record per run | median |");
        System.out.println("|---|---|---|---:|---|---:|");
        for (String mode : List.of("a", "b")) {
            for (String impl : List.of(STOCK, KMETA)) {
                List<Run> rs = results.stream().filter(r -> r.mode().equals(mode) && r.impl().equals(impl)).toList();
                if (rs.isEmpty()) {
                    continue;
                }
                StringBuilder rate = new StringBuilder();
                StringBuilder cpu = new StringBuilder();
                for (Run r : rs) {
                    rate.append(rate.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.0f",
                            r.recordsPerSecond()));
                    cpu.append(cpu.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f",
                            r.cpuUsPerRecord()));
                }
                System.out.printf(Locale.ROOT, "| %s | %s | %s | %.0f | %s | %.1f |%n", mode, impl, rate,
                        Stats.median(rs, Run::recordsPerSecond), cpu, Stats.median(rs, Run::cpuUsPerRecord));
            }
        }
        System.out.println("load at the end: " + Args.load());
    }
}
