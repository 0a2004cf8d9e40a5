package dev.kmeta.examples;

import dev.kmeta.metadata.MetadataConfig;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;

import java.util.HashMap;
import java.util.Map;

/**
 * The producer's own settings, read once from the same properties kmeta reads (Kafka's keys and defaults), each
 * checked with an error naming its key. kmeta validates its own keys ({@code bootstrap.servers}, {@code max.block.ms},
 * {@code request.timeout.ms}, {@code retry.backoff.ms}, security).
 *
 * @param acks                  {@code acks}: -1 ({@code all}, the default), 1 or 0
 * @param deliveryTimeoutMs     {@code delivery.timeout.ms}: how long a record may take from send() to its ack
 * @param batchSizeBytes        {@code batch.size}: bytes per partition in one produce request (at least one record)
 * @param maxInFlightPerBroker  {@code max.in.flight.requests.per.connection}
 * @param bufferRecords         {@code example.buffer.records}: records accepted and not yet acked or failed; a send
 *                              waits (within max.block.ms) while the buffer is full
 */
record ProducerSettings(short acks, long deliveryTimeoutMs, int batchSizeBytes, int maxInFlightPerBroker,
                        int bufferRecords) {
    static final String BUFFER_RECORDS = "example.buffer.records";

    static ProducerSettings from(Map<String, ?> props) {
        return new ProducerSettings(acks(props.get(ProducerConfig.ACKS_CONFIG)),
                longAtLeast(props, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000, 1),
                (int) longAtLeast(props, ProducerConfig.BATCH_SIZE_CONFIG, 16_384, 1),
                (int) longAtLeast(props, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5, 1),
                (int) longAtLeast(props, BUFFER_RECORDS, 10_000, 1));
    }

    /**
     * What kafka-clients' network code reads (security, socket and reconnect settings): the producer's properties as
     * an {@link AdminClientConfig} (which needs no serializers), with the producer's defaults where Admin's differ.
     */
    static AdminClientConfig networkConfig(MetadataConfig metadataConfig) {
        Map<String, Object> network = new HashMap<>();
        metadataConfig.originals().forEach((key, value) -> {
            if (!key.startsWith(MetadataConfig.KMETA_PREFIX) && !key.startsWith("example.")) {
                network.put(key, value);
            }
        });
        network.putIfAbsent(ProducerConfig.CONNECTIONS_MAX_IDLE_MS_CONFIG, 540_000L);
        network.putIfAbsent(ProducerConfig.RECEIVE_BUFFER_CONFIG, 32_768);
        network.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, metadataConfig.bootstrapServers());
        network.put("bootstrap.resolve.timeout.ms", 0); // kmeta resolves bootstrap names itself
        return new AdminClientConfig(network);
    }

    private static short acks(Object value) {
        String acks = value == null ? "all" : value.toString().trim();
        switch (acks) {
            case "all":
            case "-1":
                return -1;
            case "1":
                return 1;
            case "0":
                return 0;
            default:
                throw new ConfigException(ProducerConfig.ACKS_CONFIG, value, "must be all, -1, 0 or 1");
        }
    }

    private static long longAtLeast(Map<String, ?> props, String key, long defaultValue, long min) {
        Object value = props.get(key);
        if (value == null) {
            return defaultValue;
        }
        long parsed;
        try {
            parsed = value instanceof Number ? ((Number) value).longValue() : Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(key, value, "must be a whole number >= " + min);
        }
        if (parsed < min) {
            throw new ConfigException(key, value, "must be a whole number >= " + min);
        }
        if (parsed > Integer.MAX_VALUE && !key.endsWith(".ms")) {
            throw new ConfigException(key, value, "must be a whole number in " + min + ".." + Integer.MAX_VALUE);
        }
        return parsed;
    }
}
