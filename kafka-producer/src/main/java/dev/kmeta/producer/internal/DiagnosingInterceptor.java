package dev.kmeta.producer.internal;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.producer.internal.network.LeaderlessPartitions;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;

/**
 * The interceptor kmeta appends to a kmeta-backed producer's {@code interceptor.classes}. Its {@code onSend} gives a
 * record without key to a topic re-created with fewer partitions a partition of the new topic
 * ({@link dev.kmeta.producer.internal.network.Recreations}, issue 27: kafka-clients' partitioner may stick to one that
 * is gone), and notes the record's topic and partition for the sending thread (so a wait for a partition beyond the
 * count waits for that partition, and a send whose leader never accepted a connection is held:
 * {@link dev.kmeta.producer.internal.send.LeaderHold}); its {@code onAcknowledgement} gives a record that kafka-clients
 * gave up on after {@code send()} returned (a TimeoutException of kafka-clients' own, e.g. expired at
 * {@code delivery.timeout.ms} while its leader was unavailable) kmeta's diagnosis of the partition as the exception's
 * cause - before the record's future completes and before the application's callback runs (interceptors listed before
 * it see the exception without it).
 *
 * <p>Thread-safe: stateless after {@link #configure}; the per-thread notes live in {@link ProducerBridge}.
 */
@SuppressKafkaInternalApiUsage("maps kmeta's diagnosis to the protocol Errors that KafkaProducer's callbacks carry")
public final class DiagnosingInterceptor implements ProducerInterceptor<Object, Object> {
    /** The config key through which the producer's interceptor finds its bridge (a {@link BridgeRef}). */
    public static final String BRIDGE_CONFIG = "kmeta.producer.internal.bridge";
    private static final Logger log = LoggerFactory.getLogger(DiagnosingInterceptor.class);

    private volatile ProducerBridge bridge;

    @Override
    public void configure(Map<String, ?> configs) {
        Object ref = configs.get(BRIDGE_CONFIG);
        if (ref instanceof BridgeRef) {
            bridge = ((BridgeRef) ref).get();
        }
    }

    @Override
    public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
        ProducerBridge b = bridge;
        if (b == null) {
            return record;
        }
        return b.onSend(record);
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        ProducerBridge b = bridge;
        if (b != null && exception != null) {
            explain(b, metadata, exception);
            LeaderlessPartitions leaderless = b.recreations.leaderless();
            if (leaderless != null && metadata != null && metadata.partition() >= 0
                    && exception instanceof TimeoutException
                    && !(exception instanceof dev.kmeta.sender.KafkaMetadataTimeoutException)) {
                leaderless.expired(metadata.topic(), metadata.partition()); // issue 39: one WARN per partition
            }
            b.sendFailed(); // on a sending thread (KafkaProducer's onSendError): that send is over
        }
    }

    /**
     * A record failed with a TimeoutException of kafka-clients' own that carries no diagnosis: expired in the queue
     * ({@code delivery.timeout.ms}), or {@code send()}'s metadata wait ended by KafkaProducer's own clock before it
     * asked kmeta's (a thread starved of CPU past the bridge's give-up margin). kmeta's timeout kept for the topic,
     * else its diagnosis of the partition, becomes the exception's cause (or, where Kafka set one, a suppressed
     * exception). Runs before the record's future completes; before the application's callback except for a send()
     * that failed in its metadata wait (KafkaProducer calls that callback first).
     */
    static void explain(ProducerBridge bridge, RecordMetadata record, Exception exception) {
        if (!(exception instanceof TimeoutException) || record == null || record.topic() == null
                || exception == Errors.forException(exception).exception() || Diagnosis.from(exception).isPresent()) {
            return; // never touch Kafka's shared per-error instances
        }
        try {
            Exception reason = bridge.keptTimeout(record.topic());
            Diagnosis recreated = record.partition() >= 0 // issue 27: queued for a partition the new topic lacks
                    ? bridge.recreations.explain(record.topic(), record.partition()) : null;
            if (recreated != null) {
                reason = MetadataTimeoutException.of(recreated);
            }
            if (reason == null) {
                Diagnosis d = record.partition() >= 0
                        ? bridge.metadata().diagnoseUndelivered(record.topic(), record.partition())
                        : bridge.metadata().diagnose(record.topic(), MetadataClient.ANY_PARTITION);
                reason = d == null ? null : MetadataTimeoutException.of(d);
            }
            if (reason != null && exception.getCause() == null) {
                exception.initCause(reason);
            } else if (reason != null) {
                exception.addSuppressed(reason);
            }
        } catch (IllegalStateException e) {
            // another thread set the cause first
        } catch (RuntimeException e) {
            log.debug("{}could not diagnose {}-{}", bridge.logPrefix(), record.topic(), record.partition(), e);
        }
    }

    /** The Kafka error code closest to a diagnosis's cause (for KafkaProducer's own fallback message), or null. */
    static Errors errorFor(Diagnosis.Cause cause) {
        switch (cause) {
            case TOPIC_NOT_FOUND:
            case TOPIC_PROPAGATING:
            case PARTITION_OUT_OF_RANGE:
                return Errors.UNKNOWN_TOPIC_OR_PARTITION;
            case TOPIC_NOT_AUTHORIZED:
                return Errors.TOPIC_AUTHORIZATION_FAILED;
            case LEADER_NOT_AVAILABLE:
                return Errors.LEADER_NOT_AVAILABLE;
            case TOPIC_RECREATED:
                return Errors.UNKNOWN_TOPIC_ID;
            default:
                return null;
        }
    }

    @Override
    public void close() {
        bridge = null;
    }

    /**
     * Carries a producer's bridge through its configuration to its {@link DiagnosingInterceptor}. Set once, before
     * the producer is built; thread-safe.
     */
    public static final class BridgeRef {
        private volatile ProducerBridge bridge;

        void set(ProducerBridge b) {
            this.bridge = b;
        }

        ProducerBridge get() {
            return bridge;
        }

        @Override
        public String toString() {
            return "kmeta";
        }
    }
}
