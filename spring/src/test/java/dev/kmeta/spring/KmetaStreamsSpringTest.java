package dev.kmeta.spring;

import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.TestClients;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.EnableKafkaStreams;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spring Boot's Kafka Streams ({@code @EnableKafkaStreams}, {@code spring.kafka.streams.*}) on kmeta with one property,
 * {@code kmeta.streams.enabled=true}: the stream threads' producers run on a kmeta instance (its sender thread is named
 * after the first of them), records flow through the topology, and the instance is gone once the context closes.
 * Without the property Boot's Streams keeps its own clients.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KmetaStreamsSpringTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(1));

    @TempDir
    Path stateDir;

    @Configuration(proxyBeanMethods = false)
    @EnableKafkaStreams
    static class Topology {
        @Bean
        KStream<String, String> pipe(StreamsBuilder builder) {
            KStream<String, String> in = builder.stream("spring-streams-in");
            in.to("spring-streams-out");
            return in;
        }
    }

    @Test
    void onePropertyPutsBootsStreamsProducersOnKmeta() {
        KAFKA.cluster().createTopic("spring-streams-in", 1, 1);
        KAFKA.cluster().createTopic("spring-streams-out", 1, 1);
        for (boolean enabled : new boolean[] {true, false}) {
            String app = "spring-streams-" + enabled;
            SpringIt.boot().withUserConfiguration(Topology.class).withPropertyValues(
                    "kmeta.streams.enabled=" + enabled,
                    "spring.kafka.bootstrap-servers=" + KAFKA.cluster().bootstrapServers(),
                    "spring.kafka.streams.application-id=" + app,
                    "spring.kafka.streams.state-dir=" + stateDir.resolve(app),
                    "spring.kafka.streams.properties.default.key.serde="
                            + "org.apache.kafka.common.serialization.Serdes$StringSerde",
                    "spring.kafka.streams.properties.default.value.serde="
                            + "org.apache.kafka.common.serialization.Serdes$StringSerde").run(context -> {
                assertEquals(enabled, context.getBeansOfType(StreamsBuilderFactoryBeanConfigurer.class)
                        .containsKey("kmetaStreamsClientSupplier"), "the configurer is there only when enabled");
                try (KafkaProducer<String, String> feed = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().bootstrapServers(),
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
                    feed.send(new ProducerRecord<>("spring-streams-in", "k", app)).get(30, TimeUnit.SECONDS);
                }
                await().atMost(Duration.ofSeconds(60)).until(() -> SpringIt.committedValues(
                        KAFKA.cluster().bootstrapServers(), "spring-streams-out").contains(app));
                List<String> kmeta = streamsKmetaThreads(app);
                if (enabled) {
                    assertEquals(1, kmeta.size(), "one kmeta instance for the application's producers: " + kmeta);
                } else {
                    assertTrue(kmeta.isEmpty(), "Boot's own clients: " + kmeta);
                }
            });
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertEquals(List.of(), streamsKmetaThreads(app), "the instance closed with the context"));
        }
    }

    /** kmeta sender threads named after one of the application's stream-thread producers. */
    private static List<String> streamsKmetaThreads(String app) {
        return TestClients.kmetaThreads().stream().filter(t -> t.contains(app) && t.contains("-producer")).toList();
    }
}
