package dev.kmeta.compat;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.producer.internal.KmetaProducers;
import dev.kmeta.sender.internal.KafkaClientsCompat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Runs inside a class loader whose kafka-clients is one the KafkaProducer route does not support (see
 * {@link ClientJars#isolated}): {@link KmetaProducer#create} with kmeta keys among the properties and serializer
 * instances, twice; the first producer sends 20 records, which the broker acks. Records the producer's class, whether
 * it runs on kmeta, the fallback count after each creation and the acks. Only JDK types cross the class loader
 * boundary.
 */
public final class FallbackProbe implements Function<Map<String, Object>, Map<String, Object>> {
    @Override
    public Map<String, Object> apply(Map<String, Object> in) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("version", KafkaClientsCompat.version());
        out.put("fallbacksBefore", KmetaProducer.fallbacks());
        String topic = (String) in.get("topic");
        @SuppressWarnings("unchecked")
        Map<String, Object> props = new HashMap<>((Map<String, Object>) in.get("props"));
        props.put("client.id", "fallback-" + KafkaClientsCompat.version());
        props.put("acks", "all");
        props.put(KmetaProducer.SHARED_METADATA, "true");
        props.put(KmetaProducer.GIVE_UP_EARLY_MS, "40");
        props.put("kmeta.metadata.jitter", "0.1");
        try (Producer<String, String> producer = KmetaProducer.create(props, new StringSerializer(),
                new StringSerializer())) {
            out.put("producerClass", producer.getClass().getName());
            out.put("onKmeta", KmetaProducers.bridgeOf(producer) != null);
            out.put("fallbacksAfterFirst", KmetaProducer.fallbacks());
            java.lang.reflect.Field config = producer.getClass().getDeclaredField("producerConfig");
            config.setAccessible(true); // the stock producer's own record of what it was given
            Map<String, Object> given = ((org.apache.kafka.common.config.AbstractConfig) config.get(producer))
                    .originals();
            out.put("givenKeys", new java.util.TreeSet<>(given.keySet()).toString());
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)));
            }
            int acked = 0;
            for (Future<RecordMetadata> ack : acks) {
                if (ack.get(30, TimeUnit.SECONDS).offset() >= 0) {
                    acked++;
                }
            }
            out.put("acked", acked);
            KmetaProducer.create(props, new StringSerializer(), new StringSerializer()).close();
            out.put("fallbacksAfterSecond", KmetaProducer.fallbacks());
            javax.management.ObjectName route = new javax.management.ObjectName(
                    "dev.kmeta:type=kafka-producer-route,kafka-clients=\"" + KafkaClientsCompat.version() + "\"");
            out.put("jmxFallbacks", java.lang.management.ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(route, "Fallbacks"));
        } catch (Exception | LinkageError e) {
            out.put("failed", e.toString());
        }
        return out;
    }
}
