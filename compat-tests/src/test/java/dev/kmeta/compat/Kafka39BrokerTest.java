package dev.kmeta.compat;

import dev.kmeta.testkit.KafkaDistribution;

/** {@link BrokerCompatibility} against Kafka 3.9 brokers (every node in a child JVM, from brokers/kafka-3.9). */
class Kafka39BrokerTest extends BrokerCompatibility {
    @Override
    KafkaDistribution distribution() {
        return KafkaDistribution.named("3.9");
    }
}
