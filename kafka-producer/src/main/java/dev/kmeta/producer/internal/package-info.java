/**
 * Not an API. Where kafka-clients meets the KafkaProducer route, the one package exported (to {@code kafka.clients}
 * only: it instantiates the interceptor by class name): one thin {@code ProducerMetadata} stand-in per kafka-clients
 * ABI ({@code ProducerMetadata40}, compiled against 4.3.1 from {@code src/main/java-kafka-4.0};
 * {@link dev.kmeta.producer.internal.ProducerMetadata44}), the
 * {@link dev.kmeta.producer.internal.DiagnosingInterceptor}, the factory
 * {@link dev.kmeta.producer.internal.KmetaProducers}, and {@link dev.kmeta.producer.internal.ProducerBridge}, which
 * turns every stand-in call into one call to the owner of the calling thread. The owners and rules live in
 * sub-packages, none exported: {@code send} (a sending thread's send), {@code network} (the producer's network thread),
 * {@code view} (the Kafka views both read), {@code abi} (the kafka-clients versions and the route's reflection) and
 * {@code stats} (the route's counts and MBeans).
 */
package dev.kmeta.producer.internal;
