package dev.kmeta.metadata.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event {@code dev.kmeta.MetadataWait}: an application thread that waited for metadata past a cache miss (a
 * cache hit records nothing). Its duration is the wait's. Made and committed by the waiting thread only.
 */
@Name("dev.kmeta.MetadataWait")
@Label("Metadata Wait")
@Description("An application thread waited for a topic, a partition's leader or a metadata version (cache hits are "
        + "not recorded)")
@Category("kmeta")
@StackTrace(false)
final class WaitEvent extends Event {

    @Label("Client Id")
    String clientId;

    @Label("Topic")
    @Description("The topic waited for; null for a wait on the version (awaitUpdate)")
    String topic;

    @Label("Partition")
    @Description("The partition waited for; -1 for any partition")
    int partition;

    @Label("Outcome")
    @Description("ANSWERED, TIMED_OUT, REFUSED (unauthorized or invalid topic), FATAL, CLOSED or INTERRUPTED")
    String outcome;

}
