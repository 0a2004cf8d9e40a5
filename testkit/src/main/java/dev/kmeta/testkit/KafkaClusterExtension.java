package dev.kmeta.testkit;

import java.util.Objects;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JUnit 5 extension giving a test class one shared {@link KafkaCluster}:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(3);
 *
 * @Test
 * void sends() {
 *     KAFKA.cluster().createTopic("t", 3, 3);
 *     ... KAFKA.bootstrapServers() ...
 * }
 * }</pre>
 *
 * <p>On a static field the cluster starts before all tests of the class (and its {@code @Nested} classes) and
 * is closed after them, also when a test or the start fails; on an instance field, one cluster per test.
 * Test methods may also take a {@link KafkaCluster} parameter. JUnit is a {@code provided} dependency of the
 * testkit: this class is usable wherever JUnit Jupiter is on the classpath.
 *
 * <p>Thread-safe for JUnit's use (callbacks of one class are not concurrent); {@link #cluster()} may be called
 * from any thread.
 */
public final class KafkaClusterExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaClusterExtension.class);

    private final KafkaCluster.Builder builder;
    private volatile KafkaCluster cluster;
    private volatile String owner;

    private KafkaClusterExtension(KafkaCluster.Builder builder) {
        this.builder = Objects.requireNonNull(builder);
    }

    /** A cluster of {@code count} brokers with the testkit's defaults. */
    public static KafkaClusterExtension brokers(int count) {
        return of(KafkaCluster.builder().brokers(count));
    }

    /** A cluster built by this builder (built at each start; do not change it afterwards). */
    public static KafkaClusterExtension of(KafkaCluster.Builder builder) {
        return new KafkaClusterExtension(builder);
    }

    /** The running cluster. */
    public KafkaCluster cluster() {
        KafkaCluster current = cluster;
        if (current == null) {
            throw new IllegalStateException("the Kafka cluster is not running (used outside a test?)");
        }
        return current;
    }

    /** {@link KafkaCluster#bootstrapServers()} of the running cluster. */
    public String bootstrapServers() {
        return cluster().bootstrapServers();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        startFor(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        closeFor(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        startFor(context);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        closeFor(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return cluster();
    }

    /** Starts a cluster unless one runs already (started for an enclosing context). */
    private void startFor(ExtensionContext context) {
        if (cluster != null) {
            return;
        }
        long begin = System.nanoTime();
        KafkaCluster started = builder.build().start();
        cluster = started;
        owner = context.getUniqueId();
        LOG.info("{}: {} ready in {} ms", context.getDisplayName(), started,
                (System.nanoTime() - begin) / 1_000_000);
    }

    /** Closes the cluster if this context started it. */
    private void closeFor(ExtensionContext context) {
        KafkaCluster current = cluster;
        if (current == null || !context.getUniqueId().equals(owner)) {
            return;
        }
        cluster = null;
        owner = null;
        current.close();
    }
}
