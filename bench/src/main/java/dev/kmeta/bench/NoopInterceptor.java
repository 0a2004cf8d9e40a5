package dev.kmeta.bench;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A producer interceptor that does nothing: {@code onSend} returns the record, {@code onAcknowledgement} returns. A
 * control for P2k ({@link RealBroker#STOCK_INTERCEPTOR}): a stock producer with it pays kafka-clients' interceptor hop
 * (the interceptor list, its plugin wrapper, one more call per send and per acknowledgement) and nothing of kmeta.
 * Thread-safe: stateless.
 */
public final class NoopInterceptor implements ProducerInterceptor<Object, Object> {
    @Override
    public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        // nothing: the control prices the hop, not work
    }

    @Override
    public void close() {
        // nothing held
    }

    @Override
    public void configure(Map<String, ?> configs) {
        // no settings
    }
}
