package dev.kmeta.compat;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.examples.ExampleProducer;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.KafkaClientsCompat;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.time.Duration;

/**
 * Runs inside a class loader whose kafka-clients is one given version (see {@link ClientJars#isolated}): kmeta's
 * own thread fetches a topic's metadata, and the example producer (kmeta driven from its NetworkClient) produces
 * to it. Only JDK types cross the class loader boundary: a map of inputs in, a map of what was seen out.
 */
public final class VersionProbe implements Function<Map<String, Object>, Map<String, Object>> {
    @Override
    public Map<String, Object> apply(Map<String, Object> in) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("version", KafkaClientsCompat.version());
        out.put("kafkaClientsJar", KafkaClientsCompat.location());
        String topic = (String) in.get("topic");
        @SuppressWarnings("unchecked")
        Map<String, Object> props = new HashMap<>((Map<String, Object>) in.get("props"));
        props.put("client.id", "probe-" + KafkaClientsCompat.version());
        try (KafkaMetadata m = KafkaMetadata.create(props)) {
            Cluster c = m.awaitTopic(topic, m.newDeadline(Duration.ofSeconds(30)));
            out.put("partitions", c.partitionCount(topic));
            out.put("leader0", c.leader(topic, 0).id());
            out.put("topicId", String.valueOf(c.topicId(topic)));
            out.put("bootstrapServersParameter", KafkaClientsCompat.networkClientTakesBootstrapServers());
            out.put("produceByTopicId", KafkaClientsCompat.produceByTopicId());
        } catch (RuntimeException e) {
            out.put("refused", e.getClass().getName() + ": " + e.getMessage());
            return out;
        }
        props.put("client.id", "probe-producer-" + KafkaClientsCompat.version());
        props.put("acks", "all");
        props.put("delivery.timeout.ms", 15_000);
        try (ExampleProducer producer = ExampleProducer.create(props)) {
            List<CompletableFuture<ExampleProducer.Ack>> acks = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                acks.add(producer.send(topic, i % 2, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            int acked = 0;
            for (CompletableFuture<ExampleProducer.Ack> ack : acks) {
                if (ack.get(20, TimeUnit.SECONDS).offset() >= 0) {
                    acked++;
                }
            }
            out.put("acked", acked);
        } catch (Exception e) {
            out.put("produceFailed", e.toString());
        }
        return out;
    }
}
