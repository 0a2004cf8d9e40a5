/**
 * Real Kafka for kmeta's tests and demo: {@link dev.kmeta.testkit.KafkaCluster} (KRaft brokers in this JVM or
 * in child JVMs, on loopback ports outside the kernel's ephemeral range, storage under {@code target/}),
 * {@link dev.kmeta.testkit.FaultProxy} (a TCP proxy that refuses, resets, blackholes, delays and counts Kafka
 * request frames) and
 * {@link dev.kmeta.testkit.KafkaClusterExtension} (one cluster per JUnit 5 test class). A cluster's CLIENT listener
 * can be secured with {@link dev.kmeta.testkit.ClientSecurity} (SSL, SASL_SSL, SASL_PLAINTEXT; SCRAM users made at
 * runtime) using {@link dev.kmeta.testkit.TestCertificates} (a CA and a broker certificate made by the JDK's keytool).
 * Without brokers: {@link dev.kmeta.testkit.FakeKafkaClient}, a kafka-clients {@code KafkaClient} on fake time for
 * unit tests of code that drives one (kmeta's sender, a driven {@code KafkaMetadata}, a producer's network loop);
 * {@link dev.kmeta.testkit.FakeBroker}, a protocol-level fake cluster on loopback that holds 100k partitions cheaply,
 * for producers (stock or kmeta's) in measurements and tests.
 *
 * <p>Runtime needs: kafka_2.13 and kafka-clients (transitive), and an slf4j binding at WARN (without one Kafka
 * logs nothing and hides its errors; at INFO three brokers log thousands of lines a minute). JUnit Jupiter is
 * needed only by the extension and is not brought in transitively.
 */
package dev.kmeta.testkit;
