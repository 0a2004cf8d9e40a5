/**
 * kmeta's metadata client without a network: the waits ({@code MetadataClient}, {@code Deadline}), the configuration,
 * the diagnoses and exceptions, the connection evidence (read-only). Its {@code internal} package (the manager, the
 * merger, the counters, the evidence recorder) is for the sender only.
 */
@SuppressWarnings("module") // qualified exports name modules this module's build cannot see
module kmeta.metadata {
    requires transitive kmeta.cluster;
    requires org.jctools.core;
    requires org.slf4j;
    requires jdk.jfr;

    exports dev.kmeta.metadata;
    exports dev.kmeta.metadata.internal to kmeta.sender;
}
