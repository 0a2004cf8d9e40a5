package dev.kmeta.producer.internal;

/**
 * Implemented by every per-ABI {@code ProducerMetadata} stand-in: the bridge it answers through. Thread-safe.
 */
interface StandIn {
    /** The ABI-neutral bridge of this stand-in. */
    ProducerBridge bridge();
}
