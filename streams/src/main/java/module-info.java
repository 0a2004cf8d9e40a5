/**
 * kmeta for Kafka Streams: {@code KmetaClientSupplier}, a {@code KafkaClientSupplier} whose producers are Apache
 * Kafka's KafkaProducer on one shared kmeta instance. Kafka Streams is the application's (the automatic module
 * {@code kafka.streams}), read transitively because the supplier's API names its types.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module kmeta.streams {
    requires transitive kmeta.producer;
    requires transitive kafka.streams;

    exports dev.kmeta.streams;
}
