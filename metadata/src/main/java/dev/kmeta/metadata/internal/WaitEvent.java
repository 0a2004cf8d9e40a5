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
    /** What ended a wait that got its answer. */
    static final String ANSWERED = "ANSWERED";

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

    /** A begun event, or null while JFR is off in this JVM ({@link JfrEvents#on}). */
    static WaitEvent start() {
        if (!JfrEvents.on()) {
            return null;
        }
        WaitEvent event = new WaitEvent();
        event.begin();
        return event;
    }

    /** Ends {@code event} (null: none) with {@code outcome} and writes it if a recording wants it. */
    static void commit(WaitEvent event, String clientId, String topic, int partition, String outcome) {
        if (event == null) {
            return;
        }
        event.end();
        if (event.shouldCommit()) {
            event.clientId = clientId;
            event.topic = topic;
            event.partition = partition;
            event.outcome = outcome;
            event.commit();
        }
    }

    /** The outcome a wait that ended with {@code e} had. */
    static String outcomeOf(RuntimeException e) {
        if (e instanceof dev.kmeta.metadata.MetadataTimeoutException) {
            return "TIMED_OUT";
        } else if (e instanceof dev.kmeta.metadata.TopicException) {
            return "REFUSED";
        } else if (e instanceof dev.kmeta.metadata.MetadataClosedException) {
            return "CLOSED";
        } else if (e instanceof dev.kmeta.metadata.MetadataInterruptedException) {
            return "INTERRUPTED";
        }
        return "FATAL";
    }
}
