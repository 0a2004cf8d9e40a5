package dev.kmeta.streams;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * What the Streams tests share: an application's properties, the stock producer that feeds its input, and a reader
 * of the counts it commits. Stateless.
 */
final class StreamsIt {
    private StreamsIt() {
    }

    /**
     * A String-keyed application on {@code bootstrap}: {@code threads} stream threads, commits every 100 ms, its state
     * under {@code stateDir}; the caller adds the supplier, protocol and anything else.
     */
    static Properties streamsProps(String bootstrap, String applicationId, String guarantee, int threads,
                                   Path stateDir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        return p;
    }

    /** A stock String producer that feeds the input topics (acks=all). */
    static KafkaProducer<String, String> feeder(String bootstrap) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer());
    }

    /** A read_committed reader of a one-partition counts topic (String keys, Long counts), from its beginning. */
    static KafkaConsumer<String, Long> countsReader(String bootstrap, String topic) {
        KafkaConsumer<String, Long> reader = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new LongDeserializer());
        TopicPartition tp = new TopicPartition(topic, 0);
        reader.assign(List.of(tp));
        reader.seekToBeginning(List.of(tp));
        return reader;
    }
}
