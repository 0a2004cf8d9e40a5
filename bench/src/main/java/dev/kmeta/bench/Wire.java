package dev.kmeta.bench;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.metadata.internal.RefreshRequest;
import dev.kmeta.sender.internal.ResponseTranslator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.ClusterResourceListeners;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBrokerCollection;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopicCollection;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.internals.LogContext;
import java.time.Duration;

/**
 * The shared inputs of the side-by-side benchmarks: kafka-clients {@link MetadataResponseData} as a decoder hands
 * it over (version 13), and both implementations fed from it. The cluster is {@link ApplyDelta}'s: 100 partitions
 * per topic, 6 brokers, replication factor 3, every topic with a topic id. Partition {@code p} of topic {@code t}
 * at leader epoch {@code e} is led by broker {@code (t + p + e) % 6}, its replicas and ISR are that broker and the
 * next two.
 *
 * <p>Stateless; its methods build new objects on every call.
 */
final class Wire {
    static final short VERSION = 13;
    static final String IMPL_KMETA = "kmeta";
    static final String IMPL_KAFKA = "kafka-clients";

    private Wire() {
    }

    /** The topic id of topic {@code t}: the same for every call. */
    static Uuid topicId(int t) {
        return new Uuid(0x6b6d657461L, t + 1L);
    }

    /** A response carrying every broker and topics {@code [from, to)} at leader epoch {@code epoch}. */
    static MetadataResponseData data(String[] names, int from, int to, int epoch) {
        MetadataResponseData d = new MetadataResponseData();
        d.setClusterId(ApplyDelta.CLUSTER_ID);
        d.setControllerId(0);
        MetadataResponseBrokerCollection brokers = new MetadataResponseBrokerCollection(ApplyDelta.BROKERS);
        for (int id = 0; id < ApplyDelta.BROKERS; id++) {
            brokers.add(new MetadataResponseBroker().setNodeId(id).setHost("broker-" + id + ".kafka.internal")
                    .setPort(9092).setRack("rack-" + (id % 3)));
        }
        d.setBrokers(brokers);
        MetadataResponseTopicCollection topics = new MetadataResponseTopicCollection(to - from);
        for (int t = from; t < to; t++) {
            List<MetadataResponsePartition> partitions = new ArrayList<>(ApplyDelta.PARTITIONS_PER_TOPIC);
            for (int p = 0; p < ApplyDelta.PARTITIONS_PER_TOPIC; p++) {
                int leader = leader(t, p, epoch);
                List<Integer> replicas = new ArrayList<>(ApplyDelta.REPLICATION_FACTOR);
                for (int r = 0; r < ApplyDelta.REPLICATION_FACTOR; r++) {
                    replicas.add((leader + r) % ApplyDelta.BROKERS);
                }
                partitions.add(new MetadataResponsePartition().setPartitionIndex(p).setLeaderId(leader)
                        .setLeaderEpoch(epoch).setReplicaNodes(replicas).setIsrNodes(new ArrayList<>(replicas))
                        .setOfflineReplicas(new ArrayList<>()));
            }
            topics.add(new MetadataResponseTopic().setName(new String(names[t].toCharArray()))
                    .setTopicId(topicId(t)).setIsInternal(false).setPartitions(partitions));
        }
        d.setTopics(topics);
        return d;
    }

    /**
     * Adds to {@code data} an {@code UNKNOWN_TOPIC_OR_PARTITION} entry (no partitions) for each of {@code missing}: a
     * broker's answer for topics that do not exist. Returns {@code data}.
     */
    static MetadataResponseData withUnknown(MetadataResponseData data, Iterable<String> missing) {
        for (String name : missing) {
            data.topics().add(new MetadataResponseTopic().setName(new String(name.toCharArray()))
                    .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setTopicId(Uuid.ZERO_UUID)
                    .setIsInternal(false).setPartitions(new ArrayList<>()));
        }
        return data;
    }

    /** The leader of partition {@code p} of topic {@code t} at epoch {@code epoch}. */
    static int leader(int t, int p, int epoch) {
        return (t + p + epoch) % ApplyDelta.BROKERS;
    }

    static MetadataResponse response(MetadataResponseData data) {
        return new MetadataResponse(data, VERSION);
    }

    /** A fresh {@code ProducerMetadata} with a producer's defaults (backoff 100 ms / 1 s, max age and idle 5 min). */
    static ProducerMetadata newProducerMetadata() {
        return new ProducerMetadata(100L, 1_000L, 300_000L, 300_000L, new LogContext("[bench] "),
                new ClusterResourceListeners());
    }

    /** A {@code ProducerMetadata} with every topic added, then updated once with the full {@code data}. */
    static ProducerMetadata producerMetadata(String[] names, MetadataResponseData data) {
        ProducerMetadata m = newProducerMetadata();
        long now = System.currentTimeMillis();
        for (String name : names) {
            m.add(name, now);
        }
        m.updateWithCurrentRequestVersion(response(data), false, now);
        if (m.fetch().topics().size() != names.length) {
            throw new IllegalStateException("kafka-clients holds " + m.fetch().topics().size() + " topics, not "
                    + names.length);
        }
        return m;
    }

    /**
     * A {@code MetadataManager} that knows every topic: each subscribed with a zero-budget {@code awaitTopic} (which
     * times out and subscribes it), then one sender round ({@code poll}, {@code beginRefresh}) answered with the full
     * {@code data} through {@link ResponseTranslator} and {@code onResponse}.
     */
    static MetadataManager manager(String[] names, MetadataResponseData data) {
        return manager(names, data, Ticker.system(), Map.of());
    }

    /** {@link #manager(String[], MetadataResponseData)} on {@code ticker}, with {@code config} (a client id added). */
    static MetadataManager manager(String[] names, MetadataResponseData data, Ticker ticker, Map<String, ?> config) {
        Map<String, Object> props = new java.util.HashMap<>(config);
        props.put("client.id", "bench");
        MetadataManager m = new MetadataManager(MetadataConfig.from(props), ticker);
        for (String name : names) {
            try {
                m.awaitTopic(name, MetadataClient.ANY_PARTITION, Deadline.after(Duration.ZERO, ticker));
                throw new IllegalStateException("topic known before any answer: " + name);
            } catch (MetadataTimeoutException expected) {
                // Subscribed; the answer comes below.
            }
        }
        long now = ticker.milliTime();
        m.poll(now);
        RefreshRequest request = m.beginRefresh(now);
        if (request == null) {
            throw new IllegalStateException("no refresh due after subscribing " + names.length + " topics");
        }
        m.onResponse(request, ResponseTranslator.translate(response(data), m.fetch()), now);
        Cluster c = m.fetch();
        if (c.topicNames().size() != names.length) {
            throw new IllegalStateException("kmeta holds " + c.topicNames().size() + " topics, not " + names.length);
        }
        return m;
    }

    static void checkImpl(String impl) {
        if (!IMPL_KMETA.equals(impl) && !IMPL_KAFKA.equals(impl)) {
            throw new IllegalArgumentException("impl must be " + IMPL_KMETA + " or " + IMPL_KAFKA + ": " + impl);
        }
    }
}
