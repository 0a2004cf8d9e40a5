package dev.kmeta.metadata.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event {@code dev.kmeta.LeaderHintApplied}: a KIP-951 leader hint (from a produce response) moved a partition's
 * leader in the snapshot. Made by the sender thread only, when it applies the hint.
 */
@Name("dev.kmeta.LeaderHintApplied")
@Label("Leader Hint Applied")
@Description("A KIP-951 leader hint moved a partition's leader without a metadata request")
@Category("kmeta")
@StackTrace(false)
final class LeaderHintEvent extends Event {
    @Label("Client Id")
    String clientId;

    @Label("Topic")
    String topic;

    @Label("Partition")
    int partition;

    @Label("Leader Id")
    @Description("The new leader's broker id")
    int leaderId;

    @Label("Leader Epoch")
    int leaderEpoch;

}
