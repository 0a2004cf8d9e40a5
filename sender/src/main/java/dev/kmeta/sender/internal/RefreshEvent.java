package dev.kmeta.sender.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event {@code dev.kmeta.MetadataRefresh}: one metadata request, from the moment it was handed to the network
 * client to its answer or failure (the event's duration). Begun and committed by the thread that drives the client
 * (the sender, or a producer's network thread in driven mode), one at a time.
 */
@Name("dev.kmeta.MetadataRefresh")
@Label("Metadata Refresh")
@Description("One metadata request and its answer or failure")
@Category("kmeta")
@StackTrace(false)
final class RefreshEvent extends Event {
    @Label("Client Id")
    String clientId;

    @Label("Node")
    @Description("The address asked: 'broker <id> at host:port', or 'bootstrap host:port'")
    String node;

    @Label("Full")
    @Description("True for a request for every subscribed topic, false for the new or invalidated ones only")
    boolean full;

    @Label("Topic Count")
    @Description("Topics the request named")
    int topicCount;

    @Label("Outcome")
    @Description("ANSWERED, TIMED_OUT (request.timeout.ms), DISCONNECTED, REBOOTSTRAP_REQUIRED, VERSION_MISMATCH, "
            + "UNUSABLE (an answer that could not be read), NOT_SENT (the client refused the request) or LOST (the "
            + "client dropped it without completing it)")
    String outcome;

    /** Not an event field: set by the first finish ({@link SenderJfr#finishRefresh}), so a request is written once. */
    transient boolean finished;
}
