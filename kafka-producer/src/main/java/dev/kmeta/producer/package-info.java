/**
 * Apache Kafka's own KafkaProducer with kmeta as its metadata: {@link dev.kmeta.producer.KmetaProducer}. Everything
 * that touches kafka-clients' internals lives in {@code dev.kmeta.producer.internal}.
 */
package dev.kmeta.producer;
