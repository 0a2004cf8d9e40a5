/**
 * kmeta on the Kafka protocol: {@code KafkaMetadata} (the entry point, with its own sender thread),
 * {@code DrivenKafkaMetadata} (driven by a producer's kafka-clients network client), {@code MetadataStats}, the MXBean.
 * kafka-clients has no module descriptor: it is the automatic module {@code kafka.clients}, read transitively because
 * the API names its public types (its exceptions, and in driven mode its {@code MetadataUpdater}, {@code HostResolver}
 * and {@code KafkaClient}). The {@code internal} package exports only to kmeta's KafkaProducer route, which takes the
 * supported kafka-clients range and the sender's verdict on the kafka-clients found from {@code KafkaClientsCompat},
 * and to kmeta-spring (the automatic module {@code kmeta.spring}); both also make the calls on a handle that only
 * kmeta's modules need ({@code Handles}: same instance, Kafka's {@code Cluster} view).
 */
// "module": kmeta.producer and kmeta.spring are built later
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic", "module"})
module kmeta.sender {
    requires transitive kmeta.metadata;
    requires transitive kafka.clients;
    requires transitive java.management;
    requires org.slf4j;
    requires jdk.jfr;

    exports dev.kmeta.sender;
    exports dev.kmeta.sender.internal to kmeta.producer, kmeta.spring;
}
