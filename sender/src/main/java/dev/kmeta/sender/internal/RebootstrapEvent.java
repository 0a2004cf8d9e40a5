package dev.kmeta.sender.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event {@code dev.kmeta.Rebootstrap}: the sender dropped the brokers it had learned and went back to
 * {@code bootstrap.servers} ({@code metadata.recovery.strategy=rebootstrap}). Made by the thread that drives the
 * client.
 */
@Name("dev.kmeta.Rebootstrap")
@Label("Rebootstrap")
@Description("The sender went back to bootstrap.servers (no metadata for metadata.recovery.rebootstrap.trigger.ms, "
        + "or a broker answered REBOOTSTRAP_REQUIRED)")
@Category("kmeta")
@StackTrace(false)
final class RebootstrapEvent extends Event {
    @Label("Client Id")
    String clientId;

    @Label("Bootstrap Servers")
    String bootstrapServers;
}
