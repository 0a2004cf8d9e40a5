package dev.kmeta.producer;

import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** A user's interceptor, configured through interceptor.classes: counts what it sees. */
public final class CountingInterceptor implements ProducerInterceptor<String, String> {
    static final AtomicLong SENDS = new AtomicLong();
    static final AtomicLong ACKS = new AtomicLong();

    @Override
    public ProducerRecord<String, String> onSend(ProducerRecord<String, String> record) {
        SENDS.incrementAndGet();
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        ACKS.incrementAndGet();
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
