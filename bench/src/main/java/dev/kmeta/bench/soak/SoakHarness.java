package dev.kmeta.bench.soak;

import dev.kmeta.testkit.RunQueue;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.testkit.KafkaCluster;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.time.Duration;

/**
 * The soak: a 3-broker testkit cluster with a {@code FaultProxy} in front of each broker, random faults from the fault
 * matrix one after another ({@link Faults.Kind}: broker restart, blackhole of one or all brokers, latency beyond
 * {@code request.timeout.ms}, connection resets, partitions added, topic created) while threads keep calling
 * {@code awaitTopic} with short budgets on one long-lived {@link KafkaMetadata} and other instances are opened and
 * closed ({@link Churn}). Then it checks the invariants and reports ({@link SoakReport}).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.soak.SoakHarness --minutes 30 [--seed S]
 * </pre>
 * Exits 0 when every invariant held, 1 when one broke, 2 on bad arguments. Not thread-safe: one run at a time.
 */
public final class SoakHarness {
    /** The clients' {@code request.timeout.ms}: {@link Faults#LATENCY_MS} is beyond it. */
    static final long REQUEST_TIMEOUT_MS = 2_000;
    /** The clients' {@code retry.backoff.ms}: the request-rate bound derives from it. */
    static final long RETRY_BACKOFF_MS = 100;
    private static final int BROKERS = 3;
    private static final int INITIAL_TOPICS = 4;
    private static final long PROGRESS_EVERY_MS = 60_000;
    private static final long CONVERGE_LIMIT_MS = 60_000;
    private static final short METADATA_API_KEY = 3;

    private final SoakSettings settings;
    private final SoakReport report;
    private final StallMeter stalls = new StallMeter();
    private final WaitStats waits;
    private final Topics topics = new Topics();
    private volatile boolean stopSenders;

    private SoakHarness(SoakSettings settings) {
        this.settings = settings;
        this.report = new SoakReport(settings);
        this.waits = new WaitStats(settings.toleranceMs(), stalls);
    }

    /** Runs the soak with {@code args} (see {@link SoakSettings#parse}), prints the report, exits 0 / 1 / 2. */
    public static void main(String[] args) {
        SoakSettings settings;
        try {
            settings = SoakSettings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        SoakReport report = run(settings);
        System.out.println(report.format());
        System.exit(report.passed() ? 0 : 1);
    }

    /** Runs one soak: starts its cluster, injects faults for {@link SoakSettings#durationMs()}, checks, cleans up. */
    public static SoakReport run(SoakSettings settings) {
        try {
            return new SoakHarness(settings).runOnce();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("soak interrupted", e);
        }
    }

    private SoakReport runOnce() throws InterruptedException {
        log("starting: %s", settings);
        long begin = System.nanoTime();
        try (KafkaCluster kafka = KafkaCluster.builder().brokers(BROKERS).withProxies().build().start()) {
            log("cluster started in %d ms", elapsedMs(begin));
            for (int i = 0; i < INITIAL_TOPICS; i++) {
                String topic = "soak-" + i;
                topics.expect(topic, 3);
                kafka.createTopic(topic, 3, BROKERS);
                topics.created(topic);
            }
            try (KafkaMetadata main = KafkaMetadata.create(props(kafka, "soak-main"))) {
                for (String topic : topics.existing()) {
                    main.awaitTopic(topic, main.newDeadline(Duration.ofSeconds(30)));
                }
                report.heapStartMb = heapAfterGcMb();
                faultPhase(kafka, main);
                report.converged = converge(kafka, main);
                report.waitersLeft = main.stats().waitersNow();
            }
            report.leakedThreads = awaitNoThreads("kmeta-", 10_000);
            report.heapEndMb = heapAfterGcMb();
            log("checks done; closing the cluster");
        }
        log("done in %d s", elapsedMs(begin) / 1_000);
        return report;
    }

    /** Senders and churn run while faults are injected one after another; then everything is restored and stopped. */
    private void faultPhase(KafkaCluster kafka, KafkaMetadata main) throws InterruptedException {
        Random random = new Random(settings.seed());
        Faults faults = new Faults(kafka, topics, random, () -> probeThroughBlackhole(kafka));
        Churn churn = new Churn(id -> props(kafka, id), topics, waits, settings.seed() + 1);
        Thread meter = start("soak-stall-meter", stalls);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < settings.senders(); i++) {
            long seed = settings.seed() + 100 + i;
            threads.add(start("soak-sender-" + i, () -> sendLoop(main, new Random(seed))));
        }
        threads.add(start("soak-churn", churn));
        long mainRequestsBefore = main.stats().requestsSent();
        long proxiedBefore = proxiedMetadataRequests(kafka);
        long begin = System.nanoTime();
        long nextProgress = PROGRESS_EVERY_MS;
        while (elapsedMs(begin) < settings.durationMs()) {
            TimeUnit.MILLISECONDS.sleep(settings.paced(1_000 + random.nextInt(2_000)));
            long holdMs = settings.paced(2_000 + random.nextInt(4_000));
            try {
                faults.injectOne(holdMs);
            } catch (RuntimeException e) {
                faultError(e);
                restoreQuietly(faults);
            }
            if (elapsedMs(begin) >= nextProgress) {
                nextProgress += PROGRESS_EVERY_MS;
                log("%d s: %d faults %s, %d waits, %d past deadline (worst %.1f ms), %d instances closed",
                        elapsedMs(begin) / 1_000, faults.total(), faults.counts(), waits.waits(),
                        waits.pastDeadline(), waits.worstOvershootMs(), churn.closed.get());
            }
        }
        restoreQuietly(faults);
        stopSenders = true;
        churn.stop();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            if (t.isAlive()) {
                waits.unexpected(t.getName() + " did not stop within 30 s");
            }
        }
        stalls.stop();
        meter.join(1_000);
        report.faultPhaseMs = elapsedMs(begin);
        report.unexplainedPastDeadline = waits.unexplained();
        report.queuedExplained = waits.queuedExplained();
        report.worstUnexplained = waits.worstUnexplained();
        report.worstStallMs = stalls.worstMs();
        report.stalls = stalls.count();
        report.lateStacks = stalls.lateStacks();
        report.mainRequests = main.stats().requestsSent() - mainRequestsBefore;
        report.allMetadataRequests = proxiedMetadataRequests(kafka) - proxiedBefore;
        // At most one request per retry.backoff.ms (-20% jitter), plus one backoff skipped per new topic.
        report.requestsPerMinuteBound = 60_000.0 / (0.8 * RETRY_BACKOFF_MS)
                + faults.counts().get(Faults.Kind.TOPIC_CREATED.name()) * 60_000.0 / Math.max(1, report.faultPhaseMs);
        report.faults = faults.counts();
        report.waits = waits.waits();
        report.answered = waits.answered();
        report.timeouts = waits.timeouts();
        report.unexpectedErrors = waits.unexpected();
        report.firstUnexpected = waits.firstUnexpected();
        report.pastDeadline = waits.pastDeadline();
        report.worstOvershootMs = waits.worstOvershootMs();
        report.instancesOpened = churn.opened.get();
        report.instancesClosed = churn.closed.get();
        report.maxCloseMs = churn.maxCloseMs.get();
        report.maxReleaseMs = churn.maxReleaseMs.get();
        report.churnProblems = churn.problems.get();
        report.firstChurnProblems = churn.firstProblems();
    }

    private void sendLoop(KafkaMetadata main, Random random) {
        while (!stopSenders) {
            boolean answered = awaitOnce(main, topics, random, waits);
            if (answered) {
                try {
                    TimeUnit.MILLISECONDS.sleep(2 + random.nextInt(20)); // a producer's pace between sends
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * While every broker is blackholed: a fresh instance's wait for a topic must time out (no byte reaches a broker),
     * with a diagnosis - so that every soak that blackholes all brokers runs the timeout path, whatever the senders'
     * and the churn's timing (the senders' own waits are mostly answered from the snapshot). An answer is a failure.
     */
    private void probeThroughBlackhole(KafkaCluster kafka) {
        String topic = topics.randomAsked(new Random(settings.seed()));
        long budgetMs = 300;
        try (KafkaMetadata probe = KafkaMetadata.create(props(kafka, "soak-blackhole-probe"))) {
            if (timedAwait(probe, topic, MetadataClient.ANY_PARTITION, budgetMs, " (blackhole probe)", waits)) {
                waits.unexpected("a fresh instance was answered about " + topic + " while every broker was blackholed");
            }
        } catch (RuntimeException e) {
            waits.unexpected("blackhole probe: " + e);
        }
    }

    /**
     * One send's wait: a random topic the senders ask for, a random partition below its expected count (or any
     * partition), a budget of 100 to 1500 ms; recorded in {@code stats}. Returns true if it was answered.
     */
    static boolean awaitOnce(KafkaMetadata m, Topics topics, Random random, WaitStats stats) {
        String topic = topics.randomAsked(random);
        int partition = random.nextInt(4) == 0 ? MetadataClient.ANY_PARTITION
                : random.nextInt(topics.partitions(topic));
        long budgetMs = 100 + random.nextInt(1_400);
        return timedAwait(m, topic, partition, budgetMs, "", stats);
    }

    /**
     * {@code m.awaitTopic} within {@code budgetMs}, recorded in {@code stats} with the JVM's stalls and the thread's
     * wait for a CPU meanwhile (what may explain a late return); {@code label} follows the partition in the record.
     * Returns true if it was answered.
     */
    private static boolean timedAwait(KafkaMetadata m, String topic, int partition, long budgetMs, String label,
                                      WaitStats stats) {
        long queuedBefore = RunQueue.waitedNs();
        long ranBefore = RunQueue.ranNs();
        long begin = System.nanoTime();
        stats.stalls().waiting(begin + TimeUnit.MILLISECONDS.toNanos(budgetMs));
        try {
            m.awaitTopic(topic, partition, m.newDeadline(Duration.ofMillis(budgetMs)));
            long end = System.nanoTime();
            stats.record(topic + "-" + partition + label + ran(ranBefore), begin, budgetMs, end, null,
                    queued(queuedBefore));
            return true;
        } catch (KafkaMetadataTimeoutException e) {
            long end = System.nanoTime();
            stats.record(topic + "-" + partition + label + ran(ranBefore), begin, budgetMs, end,
                    e.diagnosis() == null ? "NO_DIAGNOSIS" : e.diagnosis().cause().name(), queued(queuedBefore));
        } catch (RuntimeException e) {
            stats.record(topic + "-" + partition + label, begin, budgetMs, System.nanoTime(), "ERROR");
            stats.unexpected(topic + "-" + partition + label + ": " + e);
        } finally {
            stats.stalls().done();
        }
        return false;
    }

    /** ", ran N ms": the calling thread's time on a CPU since {@code before}, for the report ("" where unknown). */
    private static String ran(long before) {
        long now = RunQueue.ranNs();
        return before < 0 || now < 0 ? "" : String.format(" (ran %.1f ms on a CPU)", (now - before) / 1e6);
    }

    /** Run-queue time of the calling thread since {@code before} (0 where unknown). */
    private static long queued(long before) {
        return before < 0 ? 0 : Math.max(0, RunQueue.waitedNs() - before);
    }

    /**
     * Once the faults are over, the long-lived instance must agree with the Admin on every topic (partition count
     * and each partition's leader) within {@value #CONVERGE_LIMIT_MS} ms.
     */
    private boolean converge(KafkaCluster kafka, KafkaMetadata main) throws InterruptedException {
        long begin = System.nanoTime();
        String last = "";
        while (elapsedMs(begin) < CONVERGE_LIMIT_MS) {
            last = disagreement(kafka, main);
            if (last.isEmpty()) {
                report.convergeMs = elapsedMs(begin);
                report.convergence = "(" + topics.existing().size() + " topics)";
                return true;
            }
            main.requestUpdate();
            TimeUnit.MILLISECONDS.sleep(200);
        }
        report.convergeMs = elapsedMs(begin);
        report.convergence = last;
        return false;
    }

    /** How the instance's view differs from the Admin's, or "" when it does not. */
    private String disagreement(KafkaCluster kafka, KafkaMetadata main) {
        List<String> names = topics.existing();
        Map<String, TopicDescription> described;
        try {
            described = kafka.admin().describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "describeTopics failed: " + e;
        }
        for (String topic : names) {
            Cluster c;
            try {
                c = main.awaitTopic(topic, main.newDeadline(Duration.ofSeconds(2)));
            } catch (RuntimeException e) {
                return topic + ": " + e.getMessage();
            }
            TopicDescription d = described.get(topic);
            if (c.partitionCount(topic) != d.partitions().size()) {
                return topic + ": " + c.partitionCount(topic) + " partitions, Admin says " + d.partitions().size();
            }
            for (TopicPartitionInfo p : d.partitions()) {
                Node leader = c.leader(topic, p.partition());
                int expected = p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id();
                if ((leader == null ? -1 : leader.id()) != expected) {
                    return topic + "-" + p.partition() + ": leader " + leader + ", Admin says " + expected;
                }
            }
        }
        return "";
    }

    /** Client properties: through the proxies, faults noticed within seconds, Kafka's default backoffs. */
    private static Map<String, Object> props(KafkaCluster kafka, String clientId) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", kafka.proxiedBootstrapServers());
        p.put("client.id", clientId);
        p.put("request.timeout.ms", (int) REQUEST_TIMEOUT_MS);
        p.put("retry.backoff.ms", (int) RETRY_BACKOFF_MS);
        p.put("socket.connection.setup.timeout.ms", 1_000);
        p.put("socket.connection.setup.timeout.max.ms", 2_000);
        p.put("metadata.max.age.ms", 10_000);
        p.put("allow.auto.create.topics", false);
        return p;
    }

    private static long proxiedMetadataRequests(KafkaCluster kafka) {
        return kafka.brokerIds().stream().mapToLong(id -> kafka.proxy(id).requestCount(METADATA_API_KEY)).sum();
    }

    private void faultError(RuntimeException e) {
        report.faultErrors++;
        if (report.firstFaultError.isEmpty()) {
            report.firstFaultError = e.toString();
        }
        log("fault failed: %s", e);
    }

    private void restoreQuietly(Faults faults) {
        try {
            faults.restoreAll();
        } catch (RuntimeException e) {
            faultError(e);
        }
    }

    /**
     * Waits up to {@code limitMs} for every live thread whose name starts with {@code prefix} (the testkit's own
     * {@code kmeta-testkit-*} left out) to end; returns the names still alive.
     */
    static List<String> awaitNoThreads(String prefix, long limitMs) {
        long begin = System.nanoTime();
        List<String> alive;
        do {
            alive = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                    .filter(n -> n.startsWith(prefix) && !n.startsWith("kmeta-testkit")).sorted()
                    .collect(Collectors.toList());
            if (alive.isEmpty()) {
                return alive;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return alive;
            }
        } while (elapsedMs(begin) < limitMs);
        return alive;
    }

    private static long heapAfterGcMb() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
    }

    private static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static long elapsedMs(long beginNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beginNanos);
    }

    private static void log(String format, Object... args) {
        System.out.printf("[soak] " + format + "%n", args);
    }
}
