/**
 * Not an API. The Kafka views a kmeta-backed producer reads, scoped to what the calling thread asks so that no view
 * of the whole snapshot is ever built: {@link dev.kmeta.producer.internal.view.ProducerViews} answers a sending
 * thread with its send's topic and the producer's network thread with the producer's topics; the Kafka objects they
 * are made of ({@code TopicParts}, {@code KafkaNodes}, {@code TopicsView}) live once per kmeta instance and set of
 * topics ({@code InstanceViews}), whatever the number of producers, and what building them cost is counted in
 * {@link dev.kmeta.producer.internal.view.ViewStats}. Read on both threads; nothing here refers to the bridge.
 */
package dev.kmeta.producer.internal.view;
