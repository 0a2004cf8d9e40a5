/** Kafka Streams on kmeta: {@link dev.kmeta.streams.KmetaClientSupplier}. */
package dev.kmeta.streams;
