package dev.kmeta.bench;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.testkit.KafkaCluster;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Issue 28, side by side (a plain {@code main} against real in-process brokers from testkit): a fresh producer's
 * first send. {@code --producers} (10) fresh producers of each kind, kmeta's {@code KmetaProducer} and a stock
 * {@code KafkaProducer} alternating, one after the other; each is created, sends one record to an existing topic
 * ({@code acks=all}, idempotence on: the defaults) and waits for its acknowledgement, then closes (so every kmeta
 * producer is the first of a new kmeta instance). Measured per producer: creation to acknowledgement, and
 * {@code send()} to acknowledgement.
 *
 * <p>Two setups:
 * <ul>
 *   <li>{@code one-broker}: one broker, bootstrap = the address it advertises (the usual local setup);</li>
 *   <li>{@code leader-elsewhere}: three brokers that advertise proxies in front of them, bootstrap = their own
 *       ports, the topic's leader broker 1: the leader kmeta learns is never an address that answered it, so the
 *       first send waits for kmeta's first connection to it (its leader probe).</li>
 * </ul>
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.FirstSendHarness > bench/results/first-send.txt
 * }</pre>
 * Options: {@code --producers N} (10), {@code --setup one-broker|leader-elsewhere|both} (both),
 * {@code --warmups N} (1: producers of each kind made first, unmeasured), {@code --idempotence true|false} (true; false: no InitProducerId before the first batch, so what is left is the
 * metadata and the leader's connection). About a minute.
 *
 * <p>Not thread-safe; a program.
 */
public final class FirstSendHarness {
    static final String TOPIC = "first-send";
    /** InitProducerId's api key, counted at the leader's proxy. */
    private static final short INIT_PRODUCER_ID = 22;
    /** enable.idempotence of every producer made (true: kafka-clients' default). */
    private static boolean idempotence = true;
    /** Producers of each kind made before the measured ones (class loading, the JIT: both routes alike). */
    private static int warmups = 1;

    private FirstSendHarness() {
    }

    /** One fresh producer's first send. */
    record Run(String kind, int n, long createToAckMs, long sendToAckMs, long constructMs, long sendBlockedMs) {
        /** Where the time went: the constructor, send() (the metadata wait and any hold), then send() to the ack. */
        String phases() {
            return String.format(Locale.ROOT, "constructor %d ms, send() blocked %d ms, returned -> acked %d ms",
                    constructMs, sendBlockedMs, sendToAckMs - sendBlockedMs);
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args, Map.of("producers", "10", "setup", "both", "idempotence",
                "true", "warmups", "1"));
        int producers = Args.intOpt(opts, "producers");
        String setup = opts.get("setup");
        idempotence = Boolean.parseBoolean(opts.get("idempotence"));
        warmups = Args.intOpt(opts, "warmups");
        System.out.printf(Locale.ROOT, "FirstSendHarness: %d fresh producers of each kind, alternating, "
                + "enable.idempotence=%s, %d warm-up producer(s) of each kind, %s%n", producers, idempotence, warmups,
                Args.jvm());
        if (setup.equals("both") || setup.equals("one-broker")) {
            run("one-broker", producers);
        }
        if (setup.equals("both") || setup.equals("leader-elsewhere")) {
            run("leader-elsewhere", producers);
        }
        System.out.println("load at the end: " + Args.load());
    }

    private static void run(String setup, int producers) throws Exception {
        boolean elsewhere = setup.equals("leader-elsewhere");
        Path storage = Files.createTempDirectory("kmeta-first-send-");
        KafkaCluster.Builder b = KafkaCluster.builder().storageRoot(storage);
        if (elsewhere) {
            b.brokers(3).withProxies();
        }
        List<Run> runs = new ArrayList<>();
        Map<String, Integer> initAtLeader = new HashMap<>();
        try (KafkaCluster cluster = b.build().start()) {
            if (elsewhere) {
                cluster.admin().createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1))))).all()
                        .get(30, TimeUnit.SECONDS);
                cluster.awaitLeaderEverywhere(TOPIC, 0, 1);
            } else {
                cluster.createTopic(TOPIC, 1, 1);
            }
            String bootstrap = elsewhere ? cluster.bootstrapServers().split(",")[0] : cluster.bootstrapServers();
            for (int i = 0; i < warmups; i++) { // class loading, the JIT and the topic's leader, for both kinds
                oneSend("warm-up stock", bootstrap, false);
                oneSend("warm-up kmeta", bootstrap, true);
            }
            for (String broker : cluster.bootstrapServers().split(",")) {
                // every broker hands out its first producer id once: a broker's first InitProducerId is answered
                // COORDINATOR_LOAD_IN_PROGRESS while it fetches an id block from the controller, and the producer
                // retries after retry.backoff.ms (100 ms). A stock producer asks its bootstrap broker; kmeta's asks
                // the least loaded broker of kmeta's answer, so without this its first producers met cold brokers.
                oneSend("warm-up stock", broker, false);
            }
            for (int i = 0; i < producers * 2; i++) {
                boolean kmeta = i % 2 == 0;
                long atLeader = elsewhere ? cluster.proxy(1).requestCount(INIT_PRODUCER_ID) : 0;
                Run r = oneSend(kmeta ? "kmeta" : "stock", bootstrap, kmeta);
                if (elsewhere && cluster.proxy(1).requestCount(INIT_PRODUCER_ID) > atLeader) {
                    initAtLeader.merge(r.kind(), 1, Integer::sum);
                }
                runs.add(new Run(r.kind(), i / 2, r.createToAckMs(), r.sendToAckMs(), r.constructMs(),
                        r.sendBlockedMs()));
                System.out.printf(Locale.ROOT, "%s %s #%d: created -> acked %d ms, send() -> acked %d ms (%s)%n",
                        setup, r.kind(), i / 2, r.createToAckMs(), r.sendToAckMs(), r.phases());
            }
        } finally {
            Files.deleteIfExists(storage);
        }
        System.out.println();
        System.out.println("| setup | kind | producers | created -> acked median / max "
                + "| send() -> acked median / max |");
        System.out.println("|---|---|---:|---:|---:|");
        for (String kind : List.of("stock", "kmeta")) {
            List<Run> of = runs.stream().filter(r -> r.kind().equals(kind)).toList();
            System.out.printf(Locale.ROOT, "| %s | %s | %d | %.0f / %.0f ms | %.0f / %.0f ms |%n", setup, kind,
                    of.size(), Stats.median(of, Run::createToAckMs), Stats.max(of, Run::createToAckMs),
                    Stats.median(of, Run::sendToAckMs), Stats.max(of, Run::sendToAckMs));
        }
        if (elsewhere) { // stock's rides its bootstrap connection (broker 0's own port, not proxied): 0 here
            System.out.printf(Locale.ROOT, "InitProducerId sent through the leader's address: stock %d, kmeta %d of "
                    + "%d each%n", initAtLeader.getOrDefault("stock", 0), initAtLeader.getOrDefault("kmeta", 0),
                    producers);
        }
        System.out.println();
    }

    private static Run oneSend(String kind, String bootstrap, boolean kmeta) throws Exception {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", "first-send-" + kind.replace(' ', '-') + "-" + System.nanoTime());
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("enable.idempotence", idempotence);
        long createNs = System.nanoTime();
        try (Producer<String, String> producer = kmeta ? KmetaProducer.create(p) : new KafkaProducer<>(p)) {
            long sendNs = System.nanoTime();
            java.util.concurrent.Future<?> f = producer.send(new ProducerRecord<>(TOPIC, "v"));
            long returnedNs = System.nanoTime();
            f.get(30, TimeUnit.SECONDS);
            long ackNs = System.nanoTime();
            return new Run(kind, 0, TimeUnit.NANOSECONDS.toMillis(ackNs - createNs),
                    TimeUnit.NANOSECONDS.toMillis(ackNs - sendNs), TimeUnit.NANOSECONDS.toMillis(sendNs - createNs),
                    TimeUnit.NANOSECONDS.toMillis(returnedNs - sendNs));
        }
    }
}
