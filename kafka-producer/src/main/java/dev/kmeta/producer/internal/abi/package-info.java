/**
 * Not an API. What the KafkaProducer route knows of kafka-clients versions and reaches by reflection, in one place:
 * {@link dev.kmeta.producer.internal.abi.KafkaClientsAbi} picks the {@code ProducerMetadata} stand-in whose shape fits
 * the kafka-clients on the class path (or says why none does), builds the KafkaProducer through its package-private
 * constructor, and reads what the route needs of a producer's private fields (its metadata, accumulator, network
 * thread and Sender). It names the stand-ins only as strings and the root package's {@code ProducerBridge} only as
 * the stand-ins' constructor parameter.
 */
package dev.kmeta.producer.internal.abi;
