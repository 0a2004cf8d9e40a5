package dev.kmeta.bench;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.testkit.KafkaCluster;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the real-broker route harnesses ({@link SendUnderChurnHarness}, {@link ThroughputHarness}) share: one Kafka
 * broker in a child JVM (its KRaft controller stays in this JVM), topics created in bulk, the two producers side by
 * side (Apache Kafka's {@code KafkaProducer} and {@code KmetaProducer.create}), nearest-rank percentiles of send
 * times, this process's CPU time and kmeta's snapshot version read from its MXBean. Stateless; every method may be
 * called from any thread.
 */
final class RealBroker {
    /** The stock producer, as the result lines name it. */
    static final String STOCK = "stock";
    /** The KafkaProducer on kmeta ({@code KmetaProducer.create}). */
    static final String KMETA = "kmeta";
    /**
     * A stock {@code KafkaProducer} with one interceptor that does nothing ({@link NoopInterceptor}): what
     * kafka-clients' interceptor hop costs a send, which the KafkaProducer route pays for its own interceptor (a
     * control for P2k).
     */
    static final String STOCK_INTERCEPTOR = "stock-interceptor";
    /** Every producer {@link #producer} makes. */
    static final List<String> KINDS = List.of(STOCK, KMETA, STOCK_INTERCEPTOR);
    /** The broker JVM's options by default: a server's GC and compiler, and room for 10,000-20,000 partitions. */
    static final String BROKER_JVM = "-Xmx1g -XX:+UseG1GC";

    private RealBroker() {
    }

    /**
     * A started cluster of one broker in a child JVM started with {@code brokerJvm} (JVM options separated by spaces;
     * the testkit's default for tests, {@code -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}, spends its time in
     * full GCs with 10,000 partitions), its controller in this JVM, storage under {@code storage}, loopback only.
     * The broker's log retention is checked every 5 s, so the throughput runs' topics (with {@code retention.bytes})
     * stay small on disk.
     */
    static KafkaCluster startCluster(java.nio.file.Path storage, String brokerJvm) {
        System.setProperty("kmeta.testkit.child.jvmOptions", brokerJvm);
        return KafkaCluster.builder()
                .childProcesses(true)
                .storageRoot(storage)
                .startTimeout(Duration.ofSeconds(180))
                .brokerConfig("log.retention.check.interval.ms", "5000")
                .build()
                .start();
    }

    /**
     * Creates {@code names} ({@code partitions} each, RF 1, {@code configs}) in batches of 20 and waits (at most
     * {@code timeoutMs} in all) until the broker's Admin view gives every partition a leader.
     */
    static void createTopics(Admin admin, List<String> names, int partitions, Map<String, String> configs,
                             long timeoutMs) throws Exception {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (int from = 0; from < names.size(); from += 20) {
            List<NewTopic> batch = new ArrayList<>();
            for (String name : names.subList(from, Math.min(names.size(), from + 20))) {
                batch.add(new NewTopic(name, partitions, (short) 1).configs(configs));
            }
            admin.createTopics(batch).all().get(remainingMs(deadlineNs), TimeUnit.MILLISECONDS);
        }
        for (int from = 0; from < names.size(); from += 20) {
            List<String> batch = names.subList(from, Math.min(names.size(), from + 20));
            while (!allLed(admin, batch, partitions, deadlineNs)) {
                if (System.nanoTime() > deadlineNs) {
                    throw new IllegalStateException("topics without a leader after " + timeoutMs + " ms: " + batch);
                }
                Thread.sleep(100); // polling the broker's view; nothing to wait on
            }
        }
    }

    private static boolean allLed(Admin admin, List<String> names, int partitions, long deadlineNs)
            throws Exception {
        try {
            Map<String, TopicDescription> d = admin.describeTopics(names).allTopicNames()
                    .get(remainingMs(deadlineNs), TimeUnit.MILLISECONDS);
            for (TopicDescription t : d.values()) {
                if (t.partitions().size() != partitions) {
                    return false;
                }
                for (TopicPartitionInfo p : t.partitions()) {
                    if (p.leader() == null || p.leader().isEmpty()) {
                        return false;
                    }
                }
            }
            return d.size() == names.size();
        } catch (java.util.concurrent.ExecutionException e) {
            return false; // not known everywhere yet
        }
    }

    private static long remainingMs(long deadlineNs) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
    }

    /** Producer settings both routes get: byte[] key and value, {@code extra} over Kafka's defaults. */
    static Map<String, Object> producerProps(String bootstrap, String clientId, Map<String, Object> extra) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", clientId);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.putAll(extra);
        return p;
    }

    /**
     * {@link #STOCK}: {@code new KafkaProducer(props)}; {@link #KMETA}: {@code KmetaProducer.create(props)};
     * {@link #STOCK_INTERCEPTOR}: a stock producer with {@link NoopInterceptor}.
     */
    static Producer<byte[], byte[]> producer(String impl, Map<String, Object> props) {
        return switch (impl) {
            case STOCK -> new KafkaProducer<>(props);
            case KMETA -> KmetaProducer.create(props);
            case STOCK_INTERCEPTOR -> {
                Map<String, Object> withHop = new HashMap<>(props);
                withHop.put("interceptor.classes", NoopInterceptor.class.getName());
                yield new KafkaProducer<>(withHop);
            }
            default -> throw new IllegalArgumentException(kindError("impl", impl));
        };
    }

    /** {@code kind}, when {@link #producer} makes it; else an IllegalArgumentException naming {@code option}. */
    static String checkKind(String option, String kind) {
        if (!KINDS.contains(kind)) {
            throw new IllegalArgumentException(kindError(option, kind));
        }
        return kind;
    }

    private static String kindError(String option, String kind) {
        return option + " must be one of " + KINDS + ": " + kind;
    }

    /** The routes {@code --impl} names, in the order of a round: {@code both} alternates by round. */
    static List<String> impls(String option, int round) {
        return switch (option) {
            case "both" -> round % 2 == 1 ? List.of(STOCK, KMETA) : List.of(KMETA, STOCK);
            case STOCK, KMETA -> List.of(option);
            default -> throw new IllegalArgumentException("--impl must be both, " + STOCK + " or " + KMETA + ": "
                    + option);
        };
    }

    /**
     * The nearest-rank {@code q}-quantile (0 < q <= 1) of the first {@code n} values of {@code sorted} (ascending);
     * -1 for none.
     */
    static long quantile(long[] sorted, int n, double q) {
        if (n == 0) {
            return -1;
        }
        int rank = (int) Math.ceil(q * n);
        return sorted[Math.min(n, Math.max(1, rank)) - 1];
    }

    /** Sorted copy of the first {@code n} values. */
    static long[] sorted(long[] values, int n) {
        long[] s = Arrays.copyOf(values, n);
        Arrays.sort(s);
        return s;
    }

    /** This process's CPU time in ns (all threads, JIT and GC included), or -1 where the JVM does not say. */
    static long processCpuNs() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** Total GC time in ms of every collector so far. */
    static long gcMs() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(g -> Math.max(0, g.getCollectionTime())).sum();
    }

    /**
     * The snapshot versions of the kmeta instances running in this JVM now (their MXBeans,
     * {@code dev.kmeta:type=metadata,*}): one entry per instance, in no order; none when kmeta is not in use.
     */
    static List<Long> kmetaVersions() {
        return kmetaAttribute("Version");
    }

    /** The topics subscribed in each running kmeta instance. */
    static List<Long> kmetaSubscribedTopics() {
        return kmetaAttribute("SubscribedTopics");
    }

    private static List<Long> kmetaAttribute(String attribute) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        List<Long> out = new ArrayList<>();
        try {
            Set<ObjectName> names = server.queryNames(new ObjectName("dev.kmeta:type=metadata,*"), null);
            for (ObjectName name : names) {
                out.add(((Number) server.getAttribute(name, attribute)).longValue());
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read kmeta's MXBean attribute " + attribute, e);
        }
        return out;
    }

    /** The one kmeta instance's snapshot version, or -1 when none or more than one runs. */
    static long kmetaVersion() {
        List<Long> v = kmetaVersions();
        return v.size() == 1 ? v.get(0) : -1;
    }

    /** {@code ns} as ms with 2 decimals. */
    static String ms(long ns) {
        return ns < 0 ? "-" : String.format(Locale.ROOT, "%.2f", ns / 1e6);
    }

    /** Waits at most {@code timeoutMs} for each thread to end; false if one is still alive (it is interrupted). */
    static boolean joinAll(List<Thread> threads, long timeoutMs) throws InterruptedException {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        boolean all = true;
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime())));
            if (t.isAlive()) {
                t.interrupt();
                all = false;
            }
        }
        return all;
    }

    /**
     * A daemon thread that ends the program (exit code 3, shutdown hooks run: the testkit closes a cluster left
     * open) if it is still running after {@code limitMs}: a harness must never hang a shared machine.
     */
    static void watchdog(String program, long limitMs) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(limitMs); // the bound itself
            } catch (InterruptedException e) {
                return;
            }
            System.out.println(program + ": still running after " + limitMs / 1000 + " s; exiting");
            System.exit(3);
        }, program + "-watchdog");
        t.setDaemon(true);
        t.start();
    }
}
