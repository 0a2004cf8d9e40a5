/**
 * Not an API. What the KafkaProducer route did, counted per kmeta instance and shown in JMX:
 * {@link dev.kmeta.producer.internal.stats.RouteInstances} keeps each instance's producers (as
 * {@link dev.kmeta.producer.internal.stats.RouteCounts}, which the bridge implements: this package names nothing of
 * the root package's) and the counts of those closed, for {@code KmetaProducer.routeStats}; {@code RouteStatsMBean}
 * shows them per instance ({@code type=kafka-producer-route-stats}) and
 * {@link dev.kmeta.producer.internal.stats.RouteMBean} the route of the JVM ({@code type=kafka-producer-route}:
 * kafka-clients version, stand-in, {@link dev.kmeta.producer.internal.stats.Fallbacks}). The MBeans are dynamic
 * ({@code ReadOnlyMBean}), so no package needs exporting for JMX. Never on a send: a producer joins and leaves at
 * creation and close, and counts are summed when read.
 */
package dev.kmeta.producer.internal.stats;
