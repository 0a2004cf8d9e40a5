package dev.kmeta.spring;

import dev.kmeta.sender.internal.Handles;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.micrometer.KmetaMetrics;
import dev.kmeta.micrometer.KmetaRouteMetrics;
import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.sender.KafkaMetadata;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SslConfigs;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.kafka.autoconfigure.SslBundleSslEngineFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;

import java.util.HashMap;
import java.util.Map;

/**
 * Spring Boot auto-configuration: with kmeta-spring on the class path, the producer factory Boot makes (for its
 * {@code KafkaTemplate}, {@code KafkaTransactionManager}...) is a {@link KmetaProducerFactory}, made exactly as Boot's
 * {@code KafkaAutoConfiguration} makes its {@code DefaultKafkaProducerFactory}: {@code spring.kafka.producer.*} and
 * {@code spring.kafka.properties.*} (so {@code kmeta.*} keys given there reach kmeta), the connection details
 * (bootstrap servers, security protocol, SSL bundle), the transaction-id prefix, and every
 * {@link DefaultKafkaProducerFactoryCustomizer} in order. Besides:
 * <ul>
 *   <li>{@code kmeta.enabled=false} turns all of it off (Boot's stock factory);</li>
 *   <li>an application's own {@link ProducerFactory} bean is left alone (Boot's rule);</li>
 *   <li>with Micrometer and a {@link MeterRegistry} bean, each kmeta instance's {@link KmetaMetrics} and
 *   {@link KmetaRouteMetrics} are bound to it;
 *   </li>
 *   <li>with spring-boot-health (Actuator), a health contributor {@code kmeta} reports each kmeta instance
 *       ({@code management.health.kmeta.enabled=false} turns it off);</li>
 *   <li>with {@code kmeta.streams.enabled=true} and kmeta-streams on the class path, every
 *       {@code StreamsBuilderFactoryBean} (Boot's {@code @EnableKafkaStreams} one included) gets a
 *       {@code KmetaClientSupplier}: its stream threads' producers share one kmeta instance.</li>
 * </ul>
 * See docs/spring.md. Registered in {@code META-INF/spring/...AutoConfiguration.imports}; not for direct use.
 *
 * <p>Thread-safety: a configuration class; the beans it makes are thread-safe.
 */
@AutoConfiguration(before = KafkaAutoConfiguration.class,
        afterName = {"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({KafkaTemplate.class, KafkaAutoConfiguration.class})
@ConditionalOnBooleanProperty(name = KmetaAutoConfiguration.ENABLED, matchIfMissing = true)
@EnableConfigurationProperties(KafkaProperties.class)
public final class KmetaAutoConfiguration {
    /** The property that turns kmeta's auto-configuration off when false (default true). */
    public static final String ENABLED = "kmeta.enabled";
    /** The property that puts Kafka Streams' producers on kmeta when true (default false). */
    public static final String STREAMS_ENABLED = "kmeta.streams.enabled";
    /**
     * {@code kmeta.producer.leaderless-partition=hold|fail}: the producers' {@code kmeta.producer.leaderless.partition}
     * (issue 39; docs/kafka-producer.md), unless {@code spring.kafka.properties[kmeta.producer.leaderless.partition]}
     * or the producer properties give it.
     */
    public static final String LEADERLESS_PARTITION = "kmeta.producer.leaderless-partition";

    /**
     * Boot's producer factory, kmeta-backed: what {@code KafkaAutoConfiguration.kafkaProducerFactory} does, with
     * {@link KmetaProducerFactory} in place of {@code DefaultKafkaProducerFactory}. Its name is Boot's, so Boot's own
     * backs off.
     */
    @Bean
    @ConditionalOnMissingBean(ProducerFactory.class)
    KmetaProducerFactory<?, ?> kafkaProducerFactory(KafkaProperties properties,
                                                    KafkaConnectionDetails connectionDetails,
                                                    ObjectProvider<DefaultKafkaProducerFactoryCustomizer> customizers,
                                                    org.springframework.core.env.Environment environment) {
        Map<String, Object> configs = new HashMap<>(properties.buildProducerProperties());
        String leaderless = environment.getProperty(LEADERLESS_PARTITION);
        if (leaderless != null && !leaderless.isBlank()) { // issue 39; spring.kafka.properties[...] wins
            configs.putIfAbsent(KmetaProducer.LEADERLESS_PARTITION, leaderless.trim());
        }
        KafkaConnectionDetails.Configuration producer = connectionDetails.getProducer();
        configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, producer.getBootstrapServers());
        String securityProtocol = producer.getSecurityProtocol();
        if (securityProtocol != null && !securityProtocol.isEmpty()) {
            configs.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, securityProtocol);
        }
        SslBundle sslBundle = producer.getSslBundle();
        if (sslBundle != null) {
            configs.put(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, SslBundleSslEngineFactory.class);
            configs.put(SslBundle.class.getName(), sslBundle);
        }
        KmetaProducerFactory<Object, Object> factory = new KmetaProducerFactory<>(configs);
        String transactionIdPrefix = properties.getProducer().getTransactionIdPrefix();
        if (transactionIdPrefix != null) {
            factory.setTransactionIdPrefix(transactionIdPrefix);
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(factory));
        return factory;
    }

    /** Binds {@link KmetaMetrics} of each kmeta instance of Boot's factory to Boot's {@link MeterRegistry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, KmetaMetrics.class})
    @ConditionalOnBean(MeterRegistry.class)
    static final class Metrics {
        @Bean
        DefaultKafkaProducerFactoryCustomizer kmetaMetrics(MeterRegistry registry) {
            MeterBinding binding = new MeterBinding(registry);
            return factory -> {
                if (factory instanceof KmetaProducerFactory<?, ?> kmeta) {
                    kmeta.instances().onNewInstance(binding::bind);
                }
            };
        }
    }

    /**
     * The health contributor {@code kmeta}, when Actuator's health support is on the class path. Nested twice: the
     * condition class of {@code @ConditionalOnEnabledHealthIndicator} is spring-boot-health's, so it is read only once
     * the class check passed.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static final class Health {
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnEnabledHealthIndicator("kmeta")
        static final class Enabled {
            @Bean
            @ConditionalOnMissingBean(name = "kmetaHealthIndicator")
            HealthIndicator kmetaHealthIndicator(ObjectProvider<KmetaProducerFactory<?, ?>> factories) {
                return new KmetaHealthIndicator(() -> factories.orderedStream().map(KmetaProducerFactory::instances));
            }
        }
    }

    /**
     * Kafka Streams on kmeta ({@value #STREAMS_ENABLED}): a {@code StreamsBuilderFactoryBeanConfigurer} that installs
     * {@code KmetaClientSupplier} on every {@code StreamsBuilderFactoryBean}. Its own class, read only once Spring Kafka's
     * configurer and kmeta-streams are on the class path.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer",
            "dev.kmeta.streams.KmetaClientSupplier"})
    @ConditionalOnBooleanProperty(name = STREAMS_ENABLED)
    static final class Streams {
        @Bean
        @ConditionalOnMissingBean(name = "kmetaStreamsClientSupplier")
        org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer kmetaStreamsClientSupplier() {
            return factoryBean -> factoryBean.setClientSupplier(new dev.kmeta.streams.KmetaClientSupplier());
        }
    }

    /**
     * Binds each new instance's meters. A client id whose earlier instance closed (after {@code reset()}, or once
     * every producer on it closed) has that instance's meters removed first: Micrometer would otherwise hand the new
     * binding the old meters, still reading the closed instance. Two live instances with one client id share the
     * first one's meters (give them distinct client ids).
     */
    static final class MeterBinding {
        private final MeterRegistry registry;
        private final Map<String, KafkaMetadata> bound = new HashMap<>();

        MeterBinding(MeterRegistry registry) {
            this.registry = registry;
        }

        synchronized void bind(KafkaMetadata instance) {
            String clientId = instance.config().clientId();
            KafkaMetadata earlier = bound.get(clientId);
            if (earlier != null && !Handles.sameInstance(earlier, instance) && earlier.state() == RefreshState.CLOSED) {
                for (Meter m : registry.getMeters()) {
                    if (m.getId().getName().startsWith("kmeta.") && clientId.equals(m.getId().getTag("client.id"))) {
                        registry.remove(m);
                    }
                }
            }
            bound.put(clientId, instance);
            KmetaMetrics.of(instance).bindTo(registry);
            KmetaRouteMetrics.of(instance).bindTo(registry); // the KafkaProducer route's counts beside them
        }
    }
}
