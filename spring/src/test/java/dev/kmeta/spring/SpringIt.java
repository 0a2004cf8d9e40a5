package dev.kmeta.spring;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.support.ProducerListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/** What the Spring tests share: a Boot context runner, the raw producers a context's factory made, reading a topic. */
final class SpringIt {
    private static final AtomicInteger IDS = new AtomicInteger();

    private SpringIt() {
    }

    /** A client id no other context of this JVM uses: kmeta's thread is named after it. */
    static String clientId(String what) {
        return "spring-it-" + what + "-" + IDS.incrementAndGet();
    }

    /** Boot's Kafka auto-configuration with kmeta's, and {@link RawProducers} recording each raw producer made. */
    static ApplicationContextRunner boot() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KmetaAutoConfiguration.class, KafkaAutoConfiguration.class))
                .withUserConfiguration(RawProducersConfig.class);
    }

    /** Every raw producer Boot's factory made, seen by a post-processor (which must be kept to see any). */
    static final class RawProducers {
        final List<Producer<?, ?>> made = new CopyOnWriteArrayList<>();
        final List<ClassLoader> contextClassLoaders = new CopyOnWriteArrayList<>();
    }

    /**
     * The contexts' {@code ProducerListener} in place of Boot's {@code LoggingProducerListener}: records each failed
     * send instead of logging it with its stack trace, for the tests that fail sends on purpose to assert on.
     */
    static final class SendFailures implements ProducerListener<Object, Object> {
        final List<Exception> seen = new CopyOnWriteArrayList<>();

        @Override
        public void onError(ProducerRecord<Object, Object> record, RecordMetadata metadata, Exception exception) {
            seen.add(exception);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RawProducersConfig {
        @Bean
        RawProducers rawProducers() {
            return new RawProducers();
        }

        @Bean
        SendFailures sendFailures() {
            return new SendFailures();
        }

        @Bean
        @SuppressWarnings({"unchecked", "rawtypes"})
        DefaultKafkaProducerFactoryCustomizer recordRawProducers(RawProducers raw) {
            return factory -> ((DefaultKafkaProducerFactory) factory).addPostProcessor(p -> {
                raw.made.add((Producer<?, ?>) p);
                raw.contextClassLoaders.add(Thread.currentThread().getContextClassLoader());
                return p;
            });
        }
    }

    /** Live threads named {@code kmeta-metadata-sender | <client.id>} whose client id starts with {@code clientId}. */
    static List<String> kmetaThreads(String clientId) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("kmeta-metadata-sender | " + clientId))
                .sorted()
                .collect(Collectors.toList());
    }

    /** The committed values of a one-partition topic, in order (read_committed). */
    static List<String> committedValues(String bootstrap, String topic) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        TopicPartition tp = new TopicPartition(topic, 0);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp); // the last stable offset, read_committed
            long giveUpNs = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(tp) < end) {
                if (System.nanoTime() - giveUpNs > 0) {
                    throw new AssertionError("could not read " + topic + " up to offset " + end);
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        return Collections.unmodifiableList(values);
    }
}
