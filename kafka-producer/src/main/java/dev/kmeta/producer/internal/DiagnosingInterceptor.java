package dev.kmeta.producer.internal;

import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

import java.util.Map;

/**
 * The interceptor kmeta appends to a kmeta-backed producer's {@code interceptor.classes}. Its {@code onSend} notes
 * the record's topic and partition for the sending thread (so a wait for a partition beyond the count waits for that
 * partition); its {@code onAcknowledgement} gives a record that kafka-clients gave up on after {@code send()}
 * returned (a TimeoutException of kafka-clients' own, e.g. expired at {@code delivery.timeout.ms} while its leader was
 * unavailable) kmeta's diagnosis of the partition as the exception's cause - before the record's future completes
 * and before the application's callback runs (interceptors listed before it see the exception without it).
 *
 * <p>Thread-safe: stateless after {@link #configure}; the per-thread notes live in {@link ProducerBridge}.
 */
public final class DiagnosingInterceptor implements ProducerInterceptor<Object, Object> {
    /** The config key through which the producer's interceptor finds its bridge (a {@link BridgeRef}). */
    public static final String BRIDGE_CONFIG = "kmeta.producer.internal.bridge";

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
        if (b != null) {
            b.onSend(record.topic(), record.partition());
        }
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        ProducerBridge b = bridge;
        if (b != null && exception != null) {
            b.explain(metadata, exception);
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
