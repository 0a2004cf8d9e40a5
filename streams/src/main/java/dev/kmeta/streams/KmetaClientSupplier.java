package dev.kmeta.streams;

import dev.kmeta.producer.KmetaProducer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;

import java.util.Map;

/**
 * A Kafka Streams client supplier whose producers run on kmeta: each {@link #getProducer} is Apache Kafka's own
 * {@code KafkaProducer}, made by {@link KmetaProducer#create(Map, org.apache.kafka.common.serialization.Serializer,
 * org.apache.kafka.common.serialization.Serializer)}, so the producers of every stream thread of an application (and
 * of every application in the JVM on the same cluster and identity) share one kmeta instance: one stream of Metadata
 * requests instead of one per thread, the diagnosis in every timeout. The instance closes with the last of them.
 * Consumers and the admin client are stock, built as Kafka Streams' default supplier builds them.
 *
 * <p>Exactly-once v2 works unchanged: each thread's producer keeps its {@code transactional.id}; a producer Streams
 * re-creates after fencing joins the shared instance warm for the topics it writes, and re-checks with the brokers
 * any topic it commits offsets for that no answer described since it asked (docs/kafka-producer.md, "A producer
 * joining a shared instance").
 *
 * <p>Install it with no code, in the Streams configuration:
 * <pre>{@code
 * props.put(StreamsConfig.DEFAULT_CLIENT_SUPPLIER_CONFIG, KmetaClientSupplier.class);
 * }</pre>
 * or by {@code new KafkaStreams(topology, props, new KmetaClientSupplier())}, or in Spring Kafka by
 * {@code StreamsBuilderFactoryBean.setClientSupplier(new KmetaClientSupplier())}.
 *
 * <p>Thread-safe and stateless: one supplier may serve any number of applications.
 */
public final class KmetaClientSupplier implements KafkaClientSupplier {
    /** A supplier; Kafka Streams makes one by this constructor from {@code default.client.supplier}. */
    public KmetaClientSupplier() {
    }

    /** A stock admin client. */
    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return Admin.create(config);
    }

    /** Apache Kafka's KafkaProducer on the shared kmeta instance of {@code config}'s cluster and identity. */
    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        return KmetaProducer.create(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A stock consumer: a stream thread's main consumer. */
    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        return stockConsumer(config);
    }

    /** A stock consumer: the restore consumer. */
    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return stockConsumer(config);
    }

    /** A stock consumer: the global consumer (GlobalKTables). */
    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return stockConsumer(config);
    }

    private static Consumer<byte[], byte[]> stockConsumer(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public String toString() {
        return "KmetaClientSupplier";
    }
}
