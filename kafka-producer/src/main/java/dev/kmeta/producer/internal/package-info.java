/**
 * Not an API. The reflection and kafka-clients internals of the KafkaProducer route: the ABI-neutral
 * {@link dev.kmeta.producer.internal.ProducerBridge}, one thin {@code ProducerMetadata} subclass per kafka-clients ABI
 ({@code ProducerMetadata40}, compiled against 4.3.1 from {@code src/main/java-kafka-4.0};
 * {@link dev.kmeta.producer.internal.ProducerMetadata44}) chosen at run time by shape in
 * {@link dev.kmeta.producer.internal.abi.KafkaClientsAbi} (the one class that knows kafka-clients versions, and the one
 * that makes the route's reflective calls), the per-instance views, and the diagnosing interceptor.
 */
package dev.kmeta.producer.internal;
