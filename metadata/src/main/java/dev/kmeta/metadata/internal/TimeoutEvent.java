package dev.kmeta.metadata.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Timespan;

/**
 * JFR event {@code dev.kmeta.MetadataTimeout}: a wait for metadata ended in a timeout, with its diagnosis. Made by the
 * timed-out thread only, on the (rare) timeout path.
 */
@Name("dev.kmeta.MetadataTimeout")
@Label("Metadata Timeout")
@Description("A wait for metadata timed out; the diagnosis names the cause")
@Category("kmeta")
final class TimeoutEvent extends Event {
    @Label("Client Id")
    String clientId;

    @Label("Topic")
    @Description("The topic waited for; null for a wait on the version (awaitUpdate)")
    String topic;

    @Label("Partition")
    @Description("The partition waited for; -1 for any partition")
    int partition;

    @Label("Budget")
    @Description("The wait's budget (max.block.ms or the caller's)")
    @Timespan(Timespan.MILLISECONDS)
    long budgetMs;

    @Label("Cause")
    @Description("The diagnosed cause (Diagnosis.Cause name)")
    String cause;

    @Label("Seen")
    @Description("What the diagnosis saw, in one line")
    String seen;

    @Label("Fix")
    String fix;

}
