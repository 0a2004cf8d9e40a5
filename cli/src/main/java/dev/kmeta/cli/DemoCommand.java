package dev.kmeta.cli;

import dev.kmeta.examples.ExampleProducer;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.testkit.KafkaCluster;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code kmeta demo}: three Kafka brokers in this JVM, a topic, and the example producer (kmeta embedded) sending at
 * a steady rate; one status line per second; midway the leader of partition 0 stops cleanly, the leader moves and
 * sends continue; the broker restarts; a summary. Exit code 0 iff every record sent was acknowledged.
 *
 * <p>Not thread-safe: one instance per invocation.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Runs 3 in-process Kafka brokers and a producer embedding kmeta; stops a leader midway.")
final class DemoCommand implements Callable<Integer> {
    private static final String TOPIC = "kmeta-demo";
    private static final long TOPIC_WAIT_MS = 60_000;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions of the demo topic (default 6).")
    int partitions;

    @Option(names = "--rate", defaultValue = "200", description = "Records per second (default 200).")
    int rate;

    /** The demo's shortest run: time for a leader to stop at half time and come back. */
    static final long MIN_DURATION_MS = 10_000;
    /** The demo's longest run (a longer one is a soak, not a demo; a typo like 20000 would run 5.5 hours). */
    static final long MAX_DURATION_MS = 3_600_000;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "30s", converter = Durations.Millis.class,
            description = "How long to send: 10s..1h (20s, 2m; a bare number is seconds; default ${DEFAULT-VALUE}).")
    long durationMs;

    @Option(names = "--kafka-producer", description = "Send with 3 Apache Kafka KafkaProducers sharing one kmeta "
            + "instance (KmetaProducer) instead of the example producer; the summary counts the Metadata requests.")
    boolean kafkaProducer;

    @Override
    public Integer call() throws Exception {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        Path storage = Files.createTempDirectory("kmeta-demo");
        print(out, "kmeta demo: starting 3 Kafka brokers in this JVM (KRaft, plus a controller)...");
        KafkaCluster.Builder builder = KafkaCluster.builder().brokers(3).storageRoot(storage);
        if (kafkaProducer) {
            builder.withProxies(); // they count the Metadata requests
        }
        try (KafkaCluster cluster = builder.build().start()) {
            cluster.createTopic(TOPIC, partitions, 3, Map.of("min.insync.replicas", "2"));
            print(out, "topic %s: %d partitions, replication factor 3, min.insync.replicas 2; sending %d records/s "
                    + "for %s with acks=all", TOPIC, partitions, rate, Durations.format(durationMs));
            if (kafkaProducer) {
                return new DemoKafkaProducers(cluster, TOPIC, partitions, rate, Duration.ofMillis(durationMs), out)
                        .run();
            }
            return run(cluster, out);
        } finally {
            deleteQuietly(storage);
        }
    }

    /** The cluster deletes its own storage on close; this removes the (then empty) directory it lived in. */
    static void deleteQuietly(Path directory) {
        try {
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // not empty (a broker left files behind): leave it in the temp directory
        }
    }

    private void validate() {
        if (partitions < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--partitions: '" + partitions
                    + "' must be at least 1");
        }
        if (rate < 1 || rate > 100_000) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--rate: '" + rate
                    + "' must be in 1..100000 (records per second)");
        }
        if (durationMs < MIN_DURATION_MS) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--duration: '" + Durations.format(durationMs)
                    + "' is too short: the demo needs at least " + Durations.format(MIN_DURATION_MS)
                    + " (a leader stops at half time and comes back)");
        }
        if (durationMs > MAX_DURATION_MS) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--duration: '" + Durations.format(durationMs)
                    + "' is too long: the demo runs at most " + Durations.format(MAX_DURATION_MS)
                    + " (a bare number is seconds)");
        }
    }

    private int run(KafkaCluster cluster, PrintWriter out) throws Exception {
        ExampleProducer producer = ExampleProducer.create(producerProps(cluster));
        DemoLoad load = new DemoLoad(producer, TOPIC, partitions, rate);
        DemoFailover failover = new DemoFailover(cluster, DemoFailover.Sends.of(producer, load),
                "fed back from produce answers", TOPIC, out);
        try {
            // The status line's age is the topic's metadata age: known from the first tick on, so -1 there can only
            // mean kmeta's MBean is missing (DemoStatus).
            producer.metadata().awaitTopic(TOPIC, producer.metadata().newDeadline(Duration.ofMillis(TOPIC_WAIT_MS)));
            load.start();
            tickEverySecond(new DemoStatus(producer, TOPIC, partitions), failover, out);
        } finally {
            load.close();
            producer.close(); // waits up to max.block.ms for records in flight, fails the rest, then stops
            failover.finish();
        }
        return summary(producer, failover, out);
    }

    private static Map<String, Object> producerProps(KafkaCluster cluster) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", cluster.bootstrapServers());
        props.put("client.id", "kmeta-demo");
        props.put("acks", "all");
        props.put("request.timeout.ms", 10_000);
        props.put("delivery.timeout.ms", 60_000);
        return props;
    }

    /** One status line per second; the leader stops at half time; the failover prints its own steps. */
    private void tickEverySecond(DemoStatus status, DemoFailover failover, PrintWriter out) {
        long seconds = durationMs / 1_000;
        long startNs = System.nanoTime();
        for (long second = 1; second <= seconds; second++) {
            long waitNs = startNs + TimeUnit.SECONDS.toNanos(second) - System.nanoTime();
            if (waitNs > 0) {
                LockSupport.parkNanos(waitNs);
            }
            print(out, status.line(second));
            if (second == seconds / 2) {
                failover.stopLeader();
            }
            failover.check();
        }
    }

    private static int summary(ExampleProducer producer, DemoFailover failover, PrintWriter out) {
        ExampleProducer.Stats stats = producer.stats();
        var kmeta = producer.metadata().stats();
        print(out, "summary: sent %d, acked %d, failed %d; retries %d; leader hints fed back %d (kmeta applied %d); "
                        + "invalidations %d; metadata requests %d; metadata wait p50 %dus p99 %dus",
                stats.recordsSent(), stats.recordsAcked(), stats.recordsFailed(), stats.retries(),
                stats.leaderHintsFed(), kmeta.leaderHintsApplied(), stats.invalidations(), kmeta.requestsSent(),
                stats.metadataWaitP50Us(), stats.metadataWaitP99Us());
        print(out, "partition 0's leader: broker %d -> broker %d; sends continued after the move: %s",
                failover.oldLeader(), failover.newLeader(), failover.sendsContinued() ? "yes" : "no");
        boolean allAcked = stats.recordsSent() > 0 && stats.recordsAcked() == stats.recordsSent();
        print(out, allAcked ? "OK: every record was acknowledged"
                : "FAILED: " + (stats.recordsSent() - stats.recordsAcked()) + " record(s) not acknowledged");
        return allAcked ? 0 : 1;
    }

    private static void print(PrintWriter out, String format, Object... args) {
        out.println(args.length == 0 ? format : String.format(format, args));
        out.flush();
    }
}
