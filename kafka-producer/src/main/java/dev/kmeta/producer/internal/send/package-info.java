/**
 * Not an API. What a send on an application's sending thread does on the KafkaProducer route, between the
 * interceptor's {@code onSend} and the end of KafkaProducer's {@code waitOnMetadata}: the per-thread send protocol
 * ({@link dev.kmeta.producer.internal.send.SendProtocol}, whose class doc is its transition table), the hold on a send
 * whose leaders never accepted a connection ({@link dev.kmeta.producer.internal.send.LeaderHold}), and the topics a
 * producer must see described before a request kafka-clients builds once
 * ({@link dev.kmeta.producer.internal.send.ConfirmedTopics}). {@code ProducerBridge} dispatches a sending thread's
 * calls here; nothing here refers back to it.
 */
package dev.kmeta.producer.internal.send;
