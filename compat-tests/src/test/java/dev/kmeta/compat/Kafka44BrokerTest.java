package dev.kmeta.compat;

import dev.kmeta.testkit.KafkaDistribution;

/** {@link BrokerCompatibility} against this JVM's own Kafka 4.4 brokers (in-process): the baseline of the matrix. */
class Kafka44BrokerTest extends BrokerCompatibility {
    @Override
    KafkaDistribution distribution() {
        return null;
    }
}
