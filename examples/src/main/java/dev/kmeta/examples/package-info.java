/**
 * The documented integration example (docs/embedding.md): a small producer that owns its kafka-clients
 * {@code NetworkClient} and uses kmeta as its metadata source.
 */
package dev.kmeta.examples;
