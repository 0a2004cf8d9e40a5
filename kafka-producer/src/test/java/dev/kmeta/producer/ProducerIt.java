package dev.kmeta.producer;

import dev.kmeta.producer.internal.KmetaProducers;
import dev.kmeta.producer.internal.ProducerBridge;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;

import java.util.Map;
import java.util.function.Function;

/**
 * What only the KafkaProducer-route tests share: the two kinds of producer and the bridge under one. Properties,
 * threads, proxy counters and the rest are testkit's {@link dev.kmeta.testkit.TestClients}, shared by every module.
 */
final class ProducerIt {

    private ProducerIt() {
    }

    /** A stock KafkaProducer, or one on kmeta: the two things every comparison runs. */
    enum Kind {
        STOCK(KafkaProducer::new),
        KMETA(KmetaProducer::create);

        private final Function<Map<String, Object>, Producer<String, String>> make;

        Kind(Function<Map<String, Object>, Producer<String, String>> make) {
            this.make = make;
        }

        Producer<String, String> create(Map<String, Object> props) {
            return make.apply(props);
        }
    }

    /** The kmeta bridge of a producer made by KmetaProducer. */
    static ProducerBridge bridge(Producer<?, ?> producer) {
        ProducerBridge b = KmetaProducers.bridgeOf(producer);
        if (b == null) {
            throw new AssertionError("not a kmeta-backed producer: " + producer);
        }
        return b;
    }
}
