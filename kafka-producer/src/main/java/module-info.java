/**
 * Apache Kafka's {@code KafkaProducer} on kmeta's metadata: {@code KmetaProducer}. Its {@code internal} package is
 * exported to kafka-clients only (the automatic module {@code kafka.clients}), which instantiates kmeta's producer
 * interceptor by class name (kmeta's own code makes the {@code ProducerMetadata} stand-in); the sub-packages of
 * {@code internal} ({@code send}, {@code network}, {@code view}, {@code abi}, {@code stats}) are exported to none.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module kmeta.producer {
    requires transitive kmeta.sender;
    requires transitive kafka.clients;
    requires org.slf4j;

    exports dev.kmeta.producer;
    exports dev.kmeta.producer.internal to kafka.clients;
}
