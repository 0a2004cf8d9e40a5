package dev.kmeta.compat;

import dev.kmeta.testkit.KafkaDistribution;

/** {@link BrokerCompatibility} against Kafka 3.6 brokers (every node in a child JVM, from brokers/kafka-3.6). */
class Kafka36BrokerTest extends BrokerCompatibility {
    @Override
    KafkaDistribution distribution() {
        return KafkaDistribution.named("3.6");
    }
}
