/**
 * Not an API. The reflection and kafka-clients internals of the KafkaProducer route: the ABI-neutral
 * {@link dev.kmeta.producer.internal.ProducerBridge}, one thin {@code ProducerMetadata} subclass per kafka-clients ABI
 * ({@link dev.kmeta.producer.internal.ProducerMetadata44}) chosen at run time by
 * {@link dev.kmeta.producer.internal.KafkaClientsAbi}, the per-instance views, and the diagnosing interceptor.
 */
package dev.kmeta.producer.internal;
