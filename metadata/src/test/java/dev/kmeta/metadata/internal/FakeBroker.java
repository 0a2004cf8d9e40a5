package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A scripted in-memory cluster that answers {@link RefreshRequest}s the way a broker would: topics it has, with
 * leaders and epochs; UNKNOWN_TOPIC_OR_PARTITION for the rest; TOPIC_AUTHORIZATION_FAILED for denied ones. For unit
 * tests of the manager only; the real wire is tested against real brokers.
 */
final class FakeBroker {
    final List<Node> brokers = new ArrayList<>(List.of(new Node(0, "127.0.0.1", 9092), new Node(1, "127.0.0.1", 9093),
            new Node(2, "127.0.0.1", 9094)));
    String clusterId = "cluster-A";
    /** The controller id each answer reports (KRaft brokers report a random live broker: tests script it). */
    java.util.function.IntSupplier controllerId = () -> 0;
    final Map<String, TopicMetadata> topics = new LinkedHashMap<>();
    final Set<String> denied = new HashSet<>();
    final List<RefreshRequest> requests = new ArrayList<>();

    /** Creates a topic whose partition i is led by broker i % 3 with the given epoch. */
    FakeBroker topic(String name, int partitions, int epoch) {
        List<PartitionMetadata> ps = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            ps.add(partition(name, i, i % 3, epoch));
        }
        topics.put(name, TopicMetadata.of(name, UUID.nameUUIDFromBytes(name.getBytes()), false, (short) 0, ps));
        return this;
    }

    static PartitionMetadata partition(String topic, int p, int leader, int epoch) {
        return new PartitionMetadata(topic, p, leader, epoch, new int[] {0, 1, 2}, new int[] {0, 1, 2}, null,
                (short) 0);
    }

    /** Sets one partition's leader and epoch. */
    FakeBroker leader(String topic, int p, int leader, int epoch) {
        TopicMetadata t = topics.get(topic);
        topics.put(topic, t.withPartition(partition(topic, p, leader, epoch)));
        return this;
    }

    RefreshResponse respond(RefreshRequest request) {
        requests.add(request);
        Map<String, TopicMetadata> answer = new LinkedHashMap<>();
        for (String name : request.topics()) {
            if (denied.contains(name)) {
                answer.put(name, TopicMetadata.of(name, null, false, (short) 29, List.of()));
            } else if (topics.containsKey(name)) {
                answer.put(name, topics.get(name));
            } else {
                answer.put(name, TopicMetadata.of(name, null, false, (short) 3, List.of()));
            }
        }
        return new RefreshResponse(clusterId, controllerId.getAsInt(), brokers, answer, true, (short) 0);
    }
}
