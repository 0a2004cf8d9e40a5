/**
 * Not an API. What the producer's network thread (its Sender, accumulator, TransactionManager and NetworkClient) does
 * on the KafkaProducer route: {@link dev.kmeta.producer.internal.network.NetworkThreadProtocol} owns which thread it
 * is, its first request ({@code FirstRequestTarget}), the Metadata updates it asks for, the KIP-951 leader hints and
 * how kmeta's answers wake it; each loop it runs the housekeeping of the records kafka-clients would keep queued until
 * {@code delivery.timeout.ms} - for a partition a re-created topic lacks
 * ({@link dev.kmeta.producer.internal.network.Recreations}) or one without a leader
 * ({@link dev.kmeta.producer.internal.network.LeaderlessPartitions}), through
 * {@link dev.kmeta.producer.internal.network.StaleQueues}, the one reach into the accumulator. Recreations and
 * LeaderlessPartitions also note each send, from the interceptor on the sending thread. Nothing here refers to the
 * bridge; of the route's other packages it uses only abi (the Sender to wake, the accumulator).
 */
package dev.kmeta.producer.internal.network;
