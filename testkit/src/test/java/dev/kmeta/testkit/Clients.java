package dev.kmeta.testkit;

import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/** Small factories for real Kafka clients in tests. */
final class Clients {

    private Clients() {
    }

    static KafkaProducer<String, String> producer(String bootstrap, long maxBlockMs) {
        return producer(bootstrap, maxBlockMs, 5_000, 10_000);
    }

    static KafkaProducer<String, String> producer(String bootstrap, long maxBlockMs, int requestTimeoutMs,
            int deliveryTimeoutMs) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) maxBlockMs,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, requestTimeoutMs,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, deliveryTimeoutMs,
                ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200,
                ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200),
                new StringSerializer(), new StringSerializer());
    }

    static Admin admin(String bootstrap) {
        return Admin.create(Map.of("bootstrap.servers", bootstrap, "request.timeout.ms", 5_000,
                "default.api.timeout.ms", 10_000, "reconnect.backoff.max.ms", 200));
    }
}
