package dev.kmeta.testkit;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Metadata answer for unit tests of the wire side (a {@link FakeKafkaClient}'s or a driver's), built in a line:
 * <pre>{@code
 * MetadataResponse answer = MetadataAnswers.cluster("fake-cluster").broker(1, "b1.test", 9092)
 *         .partition("orders", ORDERS_ID, 0, 1, 1, 1).response();   // orders-0 led by 1 at epoch 1, replicas [1]
 * }</pre>
 * The controller is broker 1 unless set; answers are v13 unless asked otherwise. The generated collections are added
 * to through {@code java.util.Collection}, whose linkage is the same on every kafka-clients 4.x (their own {@code add}
 * links against a class whose package moved in 4.4).
 *
 * <p>Not thread-safe: a builder.
 */
public final class MetadataAnswers {
    /** The Metadata version of {@link #response()}: v13 (4.x brokers). */
    public static final short VERSION = 13;

    private final MetadataResponseData data = new MetadataResponseData().setControllerId(1);
    private final Map<String, MetadataResponseTopic> topics = new LinkedHashMap<>();

    private MetadataAnswers(String clusterId) {
        data.setClusterId(clusterId);
    }

    /** An answer of the cluster {@code clusterId}: no broker, no topic yet. */
    public static MetadataAnswers cluster(String clusterId) {
        return new MetadataAnswers(clusterId);
    }

    /** The controller id the answer reports. */
    public MetadataAnswers controller(int id) {
        data.setControllerId(id);
        return this;
    }

    /** A broker. */
    public MetadataAnswers broker(int id, String host, int port) {
        brokers().add(new MetadataResponseBroker().setNodeId(id).setHost(host).setPort(port));
        return this;
    }

    /** A topic with {@code error} (or {@link Errors#NONE}) and no partitions yet; {@code id} null: no topic id. */
    public MetadataAnswers topic(String name, Uuid id, Errors error) {
        MetadataResponseTopic t = new MetadataResponseTopic().setName(name).setErrorCode(error.code());
        if (id != null) {
            t.setTopicId(id);
        }
        topics.put(name, t);
        return this;
    }

    /**
     * A partition of {@code topic} (added without error first if not there), led by {@code leader} at
     * {@code leaderEpoch}, with {@code replicas} as its replicas and in-sync replicas.
     */
    public MetadataAnswers partition(String topic, Uuid topicId, int index, int leader, int leaderEpoch,
                                     int... replicas) {
        if (!topics.containsKey(topic)) {
            topic(topic, topicId, Errors.NONE);
        }
        List<Integer> nodes = new ArrayList<>();
        for (int r : replicas) {
            nodes.add(r);
        }
        topics.get(topic).partitions().add(new MetadataResponsePartition().setPartitionIndex(index)
                .setLeaderId(leader).setLeaderEpoch(leaderEpoch).setReplicaNodes(nodes)
                .setIsrNodes(new ArrayList<>(nodes)));
        return this;
    }

    /** The answer's data (the topics added in order). */
    public MetadataResponseData data() {
        Collection<MetadataResponseTopic> all = topicsOf(data);
        for (MetadataResponseTopic t : topics.values()) {
            if (!all.contains(t)) {
                all.add(t);
            }
        }
        return data;
    }

    /** The answer, as version {@link #VERSION}. */
    public MetadataResponse response() {
        return new MetadataResponse(data(), VERSION);
    }

    private Collection<MetadataResponseBroker> brokers() {
        return data.brokers();
    }

    private static Collection<MetadataResponseTopic> topicsOf(MetadataResponseData data) {
        return data.topics();
    }
}
