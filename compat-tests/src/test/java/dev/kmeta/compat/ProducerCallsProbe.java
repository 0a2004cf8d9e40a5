package dev.kmeta.compat;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.producer.internal.StandInCalls;
import dev.kmeta.sender.internal.KafkaClientsCompat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs inside a class loader whose kafka-clients is one given version (see {@link ClientJars#isolated}) and records,
 * through kmeta's test hook ({@link StandInCalls}), every call KafkaProducer, its Sender, TransactionManager and
 * NetworkClient make on kmeta's {@code ProducerMetadata} stand-in, scenario by scenario (one fresh producer each, on
 * the version's shared kmeta instance, closed before the next starts). Returns, per scenario (in {@link #SCENARIOS}
 * order), the raw calls as {@code "<role> <method>"} ({@code app}: the thread that runs the scenario, {@code net}: the
 * producer's network thread, {@code other}: any other) after a first element {@code "outcome <what happened>"}; and
 * under {@code "<scenario>.ms"} how long the scenario took. Only JDK types cross the class loader boundary.
 * {@link ProducerCallTraces} turns the calls into the pinned traces.
 *
 * <p>Input: {@code props} (bootstrap), {@code topic} (1 partition, created), {@code hintTopic} (1 partition, 2
 * replicas, created) and {@code moveLeader} (a {@code Runnable} that moves the hint topic's leader to the other broker
 * and waits until every broker knows).
 */
public final class ProducerCallsProbe implements Function<Map<String, Object>, Map<String, Object>> {
    /** The scenarios, in the order they run (later ones rely on the shared kmeta instance knowing the topic). */
    static final List<String> SCENARIOS = List.of("new-topic", "known-topic", "missing-topic",
            "partition-beyond-count", "leader-hint", "idempotent", "transactional");
    private static final String STRINGS = "org.apache.kafka.common.serialization.StringSerializer";

    private final List<String> calls = new ArrayList<>();
    private volatile Thread app;

    @Override
    public Map<String, Object> apply(Map<String, Object> in) {
        String version = KafkaClientsCompat.version();
        String topic = (String) in.get("topic");
        String hintTopic = (String) in.get("hintTopic");
        Runnable moveLeader = (Runnable) in.get("moveLeader");
        @SuppressWarnings("unchecked")
        Map<String, Object> base = new HashMap<>((Map<String, Object>) in.get("props"));
        base.put("key.serializer", STRINGS);
        base.put("value.serializer", STRINGS);
        base.put("enable.idempotence", false);
        base.put("acks", "1");
        base.put("linger.ms", 0);
        base.put("max.block.ms", 30_000); // a first send in a fresh class loader, on loaded cores
        Map<String, Object> out = new LinkedHashMap<>();
        app = Thread.currentThread();
        StandInCalls.install(this::record);
        try {
            for (String scenario : SCENARIOS) {
                Map<String, Object> props = new HashMap<>(base);
                props.put("client.id", "trace-" + scenario + "-" + version);
                synchronized (calls) {
                    calls.clear();
                }
                String outcome;
                long startNs = System.nanoTime();
                try {
                    outcome = run(scenario, props, topic, hintTopic, moveLeader, version, this::sawHint);
                } catch (Exception e) {
                    outcome = "failed " + e;
                }
                List<String> trace = new ArrayList<>();
                trace.add("outcome " + outcome);
                synchronized (calls) {
                    trace.addAll(calls);
                }
                out.put(scenario, trace);
                out.put(scenario + ".ms", (System.nanoTime() - startNs) / 1_000_000);
            }
        } finally {
            StandInCalls.install(null);
        }
        return out;
    }

    private void record(Object standIn, String method) {
        Thread t = Thread.currentThread();
        String role = t == app ? "app" : t.getName().startsWith("kafka-producer-network-thread") ? "net" : "other";
        synchronized (calls) {
            calls.add(role + " " + method);
        }
    }

    private boolean sawHint() {
        synchronized (calls) {
            return calls.contains("net updatePartitionLeadership");
        }
    }

    private static String run(String scenario, Map<String, Object> props, String topic, String hintTopic,
                              Runnable moveLeader, String version, BooleanSupplier sawHint) throws Exception {
        switch (scenario) {
            case "new-topic":
            case "known-topic":
                try (Producer<String, String> p = KmetaProducer.create(props)) {
                    p.send(new ProducerRecord<>(topic, "v")).get(30, TimeUnit.SECONDS);
                    return "acked";
                }
            case "missing-topic":
                props.put("max.block.ms", 500);
                return expectFailure(props, new ProducerRecord<>(topic + "-missing", "v"));
            case "partition-beyond-count":
                props.put("max.block.ms", 500);
                return expectFailure(props, new ProducerRecord<>(topic, 3, null, "v"));
            case "leader-hint":
                // A private instance: the shared one also refreshes for the earlier scenarios' topics (the missing one
                // above all) and may learn the new leader before the second send meets the old one, leaving no hint.
                // Even so a refresh kmeta had scheduled may land after the move: then the second send goes to the
                // new leader at once and no hint comes. The leader moves again (up to 5 times) until one did; the
                // repeated sends fold into one in the trace.
                props.put("kmeta.producer.shared.metadata", false);
                try (Producer<String, String> p = KmetaProducer.create(props)) {
                    p.send(new ProducerRecord<>(hintTopic, 0, null, "before")).get(30, TimeUnit.SECONDS);
                    for (int move = 1; ; move++) {
                        moveLeader.run();
                        p.send(new ProducerRecord<>(hintTopic, 0, null, "after")).get(30, TimeUnit.SECONDS);
                        if (sawHint.getAsBoolean() || move == 5) {
                            return "acked";
                        }
                    }
                }
            case "idempotent":
                props.put("enable.idempotence", true);
                props.put("acks", "all");
                try (Producer<String, String> p = KmetaProducer.create(props)) {
                    p.send(new ProducerRecord<>(topic, "v")).get(30, TimeUnit.SECONDS);
                    return "acked";
                }
            case "transactional":
                props.put("enable.idempotence", true);
                props.put("acks", "all");
                props.put("transactional.id", "trace-tx-" + version);
                try (Producer<String, String> p = KmetaProducer.create(props)) {
                    p.initTransactions();
                    p.beginTransaction();
                    p.send(new ProducerRecord<>(topic, "v")).get(30, TimeUnit.SECONDS);
                    p.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1)),
                            new ConsumerGroupMetadata("trace-group-" + version));
                    p.commitTransaction();
                    return "committed";
                }
            default:
                throw new IllegalArgumentException(scenario);
        }
    }

    /** Sends one record that must fail; the outcome names the exception's type (the cause's, for a future's). */
    private static String expectFailure(Map<String, Object> props, ProducerRecord<String, String> record)
            throws Exception {
        try (Producer<String, String> p = KmetaProducer.create(props)) {
            p.send(record).get(30, TimeUnit.SECONDS);
            return "acked (expected a failure)";
        } catch (ExecutionException e) {
            return "failed " + e.getCause().getClass().getSimpleName();
        } catch (RuntimeException e) {
            return "thrown " + e.getClass().getSimpleName();
        }
    }
}
