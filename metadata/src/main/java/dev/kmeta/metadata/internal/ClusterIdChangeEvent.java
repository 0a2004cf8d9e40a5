package dev.kmeta.metadata.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event {@code dev.kmeta.ClusterIdChange}: an answer came from another cluster than the one before (the bootstrap
 * now leads elsewhere); the old cluster's topics were dropped. Made by the sender thread only.
 */
@Name("dev.kmeta.ClusterIdChange")
@Label("Cluster Id Change")
@Description("An answer named another cluster id than the one before; the old cluster's metadata was dropped")
@Category("kmeta")
@StackTrace(false)
final class ClusterIdChangeEvent extends Event {
    @Label("Client Id")
    String clientId;

    @Label("Previous Cluster Id")
    String previousClusterId;

    @Label("Cluster Id")
    String clusterId;

}
