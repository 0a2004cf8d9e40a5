package dev.kmeta.sender.internal;

import dev.kmeta.sender.KafkaMetadataMXBean;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.StandardMBean;
import java.util.Map;

/**
 * An instance's {@link KafkaMetadataMXBean} as registered: the MXBean, with an {@link MBeanInfo} whose descriptions
 * say each attribute's unit and meaning (what jconsole shows, and what exporters such as the Prometheus JMX exporter
 * use as help text) instead of repeating its name. Each description starts with the unit ({@code seconds},
 * {@code ms}, {@code count}) when the attribute is a number. docs/metrics.md has the same table.
 *
 * <p>Thread-safe (the descriptions are constants; attribute reads go to the MXBean).
 */
final class DescribedMetadataMBean extends StandardMBean {
    /** Attribute name to description. Every attribute of {@link KafkaMetadataMXBean} has one (JmxTest checks). */
    static final Map<String, String> ATTRIBUTES = Map.ofEntries(
            Map.entry("ClientId", "The instance's client.id (of the first creator, for a shared instance)."),
            Map.entry("Sharing", "shared: an instance shared by the users of one cluster and security identity "
                    + "(KafkaMetadata.shared, KmetaProducer), whose ClientId and log prefix are its first user's; "
                    + "else private."),
            Map.entry("Users", "The client.id of each open handle on the instance, in the order they came: a shared "
                    + "instance's producers and other users; a private one's creator alone."),
            Map.entry("MetadataAgeSeconds", "seconds (ms precision): since the last applied answer to a full metadata "
                    + "request (the first one, requestUpdate(), every metadata.max.age.ms): no subscribed topic's "
                    + "metadata is older. Before the first full answer: since the instance started. As kafka-clients' "
                    + "producer metadata-age."),
            Map.entry("TopicAgesSeconds", "seconds (ms precision), per subscribed topic: since an applied answer (full or "
                    + "partial) last described it; topics no answer described yet are absent."),
            Map.entry("Version", "count: the snapshot's version, 0 before the first answer, +1 for each new "
                    + "snapshot (answer applied, batch of leader hints, idle-topic expiry)."),
            Map.entry("State", "The refresh state: STABLE, NEED_UPDATE, IN_FLIGHT or CLOSED."),
            Map.entry("RequestsSent", "count: metadata requests sent since the instance started."),
            Map.entry("RequestsFailed", "count: metadata requests that failed (disconnected, timed out after "
                    + "request.timeout.ms, or answered unusably)."),
            Map.entry("RequestsCoalesced", "count: update requests folded into one already pending (single flight), "
                    + "each a request not sent."),
            Map.entry("ResponsesApplied", "count: metadata answers applied to the snapshot."),
            Map.entry("RequestLatencyTotalMs", "ms: sum of the latencies (request sent to answer applied) of the "
                    + "applied answers."),
            Map.entry("RequestLatencyAvgMs", "ms: RequestLatencyTotalMs / ResponsesApplied since the instance "
                    + "started (0 before the first answer)."),
            Map.entry("RequestLatencyMaxMs", "ms: the largest latency of an applied answer since the instance "
                    + "started."),
            Map.entry("WaitersNow", "count: application threads waiting for metadata (awaitTopic, awaitUpdate) "
                    + "right now."),
            Map.entry("WaitTimeTotalMs", "ms: total time application threads spent waiting for metadata (kafka-clients' "
                    + "metadata-wait-time-ns-total, in ms)."),
            Map.entry("WaitTimeouts", "count: waits for metadata that ended in a timeout, whatever the cause."),
            Map.entry("WaitTimeoutsByCause", "count, per diagnosed cause (TOPIC_NOT_FOUND, "
                    + "BOOTSTRAP_UNREACHABLE...): waits that ended in a timeout; every cause is present, zeros "
                    + "included."),
            Map.entry("StaleEpochsRejected", "count: partitions whose leader epoch in an answer was older than the "
                    + "cached one, so not applied (KIP-320)."),
            Map.entry("LeaderHintsApplied", "count: KIP-951 leader hints (from produce responses) applied to the "
                    + "snapshot."),
            Map.entry("Rebootstraps", "count: times the sender went back to bootstrap.servers "
                    + "(metadata.recovery.strategy=rebootstrap)."),
            Map.entry("MisroutedConnections", "count: times a broker refused the cluster id and node id kmeta sent "
                    + "with ApiVersions (KIP-1242, kafka-clients 4.4), each followed by a rebootstrap: an address "
                    + "leads to another broker or cluster."),
            Map.entry("BootstrapResolveTimeouts", "count: times bootstrap.resolve.timeout.ms (KIP-909) passed with no "
                    + "name of bootstrap.servers resolving."),
            Map.entry("SubscribedTopics", "count: topics subscribed now (asked for, not expired by "
                    + "metadata.max.idle.ms)."),
            Map.entry("StaleRefreshes", "count: refreshes the staleness target (kmeta.metadata.max.staleness.ms) "
                    + "asked because subscribed topics were older than it; 0 while it is off."),
            Map.entry("OldestTopicAgeSeconds", "seconds (ms precision): since an answer last described the oldest "
                    + "subscribed topic (the largest of TopicAgesSeconds); -1 when none was described yet."));

    DescribedMetadataMBean(KafkaMetadataMXBean mbean) {
        super(mbean, KafkaMetadataMXBean.class, true);
    }

    @Override
    protected String getDescription(MBeanInfo info) {
        return "kmeta: one client's metadata for one Kafka cluster (snapshot, refresh state, requests, waits). "
                + "Counters count from the instance's start and never go down; ages are read when asked.";
    }

    @Override
    protected String getDescription(MBeanAttributeInfo info) {
        return ATTRIBUTES.getOrDefault(info.getName(), info.getName());
    }

    @Override
    protected String getDescription(MBeanOperationInfo info) {
        return info.getName().equals("topicAgeSeconds") ? "seconds (ms precision): since an applied answer last "
                + "described the topic; -1 when it is not subscribed or no answer described it yet."
                : info.getName();
    }

    @Override
    protected String getParameterName(MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
        return op.getName().equals("topicAgeSeconds") ? "topic" : super.getParameterName(op, param, sequence);
    }

    @Override
    protected String getDescription(MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
        return op.getName().equals("topicAgeSeconds") ? "the topic's name" : super.getDescription(op, param, sequence);
    }
}
