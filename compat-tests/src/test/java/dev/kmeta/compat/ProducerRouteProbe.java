package dev.kmeta.compat;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.producer.internal.KmetaProducers;
import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import dev.kmeta.sender.internal.KafkaClientsCompat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Runs inside a class loader whose kafka-clients is one given version (see {@link ClientJars#isolated}): Apache
 * Kafka's own KafkaProducer on kmeta ({@link KmetaProducer#create}) sends 20 records with idempotence and
 * {@code acks=all}, then a second producer (on the same shared kmeta instance, {@code max.block.ms=1500}) one to a
 * missing topic, which must fail with kmeta's diagnosis through that version's {@code awaitUpdate}. On a refused version, records the refusal of two creations in a row. Only JDK types cross the
 * class loader boundary.
 */
public final class ProducerRouteProbe implements Function<Map<String, Object>, Map<String, Object>> {
    private static final String STRINGS = "org.apache.kafka.common.serialization.StringSerializer";

    @Override
    public Map<String, Object> apply(Map<String, Object> in) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("version", KafkaClientsCompat.version());
        String topic = (String) in.get("topic");
        @SuppressWarnings("unchecked")
        Map<String, Object> props = new HashMap<>((Map<String, Object>) in.get("props"));
        props.put("client.id", "route-" + KafkaClientsCompat.version());
        props.put("key.serializer", STRINGS);
        props.put("value.serializer", STRINGS);
        props.put("acks", "all");
        props.put("max.block.ms", 30_000); // the first send in a fresh class loader, on loaded cores
        Producer<String, String> producer;
        try {
            producer = KmetaProducer.create(props);
        } catch (RuntimeException | LinkageError e) {
            out.put("refused", chain(e));
            try {
                KmetaProducer.create(props).close();
            } catch (RuntimeException | LinkageError again) {
                out.put("refusedAgain", chain(again));
            }
            return out;
        }
        try (producer) {
            out.put("standIn", KafkaClientsAbi.current().standInClass());
            out.put("onKmeta", KmetaProducers.bridgeOf(producer) != null);
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, i % 2, "k" + i, "v" + i)));
            }
            int acked = 0;
            for (Future<RecordMetadata> ack : acks) {
                if (ack.get(30, TimeUnit.SECONDS).offset() >= 0) {
                    acked++;
                }
            }
            out.put("acked", acked);
            Map<String, Object> quick = new HashMap<>(props); // a second producer, on the same (shared) kmeta instance
            quick.put("client.id", "route-quick-" + KafkaClientsCompat.version());
            quick.put("max.block.ms", 1_500);
            try (Producer<String, String> second = KmetaProducer.create(quick)) {
                second.send(new ProducerRecord<>(topic + "-missing", "v")).get(30, TimeUnit.SECONDS);
                out.put("missingSent", true);
            } catch (ExecutionException e) {
                out.put("missingError", e.getCause().toString());
                out.put("missingCause", Diagnosis.from(e).map(d -> d.cause().name()).orElse(null));
            }
        } catch (Exception e) {
            out.put("failed", e.toString());
        }
        return out;
    }

    /** The exception and its causes, as text ("A: message <- B: message"). */
    private static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            b.append(b.length() == 0 ? "" : " <- ").append(t.getClass().getName()).append(": ").append(t.getMessage());
        }
        return b.toString();
    }
}
