package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Node;

/** A KIP-951 leader hint posted by an application thread, applied by the sender. Immutable. */
final class LeaderHint {
    final String topic;
    final int partition;
    final int leaderId;
    final int leaderEpoch;
    final Node endpoint;

    LeaderHint(String topic, int partition, int leaderId, int leaderEpoch, Node endpoint) {
        this.topic = topic;
        this.partition = partition;
        this.leaderId = leaderId;
        this.leaderEpoch = leaderEpoch;
        this.endpoint = endpoint;
    }
}
