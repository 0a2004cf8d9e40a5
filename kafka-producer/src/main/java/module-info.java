/**
 * Apache Kafka's {@code KafkaProducer} on kmeta's metadata: {@code KmetaProducer}. Its {@code internal} package is
 * exported to kafka-clients only (the automatic module {@code kafka.clients}), which instantiates kmeta's producer
 * interceptor and metadata by class name.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module kmeta.producer {
    requires transitive kmeta.sender;
    requires transitive kafka.clients;
    requires org.slf4j;

    exports dev.kmeta.producer;
    exports dev.kmeta.producer.internal to kafka.clients;
}
