package dev.kmeta.testkit;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaBroker;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node running in this JVM as a {@link KafkaRaftServer}. Its listeners bind the ports the cluster chose; a
 * broker's bound ports are read back from it once it started (a listener configured with port 0 gets one from the
 * kernel) and reused on restart.
 */
final class InProcessNode extends KafkaNode {

    private static final Logger LOG = LoggerFactory.getLogger(InProcessNode.class);

    private volatile KafkaRaftServer server;

    InProcessNode(int id, Role role, java.nio.file.Path dir) {
        super(id, role, dir);
    }

    @Override
    void start(Map<String, String> config, Duration timeout) {
        KafkaExit.expectedDuring(() -> {
            startNow(config);
            return null;
        });
    }

    private void startNow(Map<String, String> config) {
        writeConfig(config);
        Properties props = new Properties();
        props.putAll(config);
        KafkaRaftServer started = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server = started;
        try {
            started.startup();
            if (role.isBroker()) {
                clientPort = boundPort(started, KafkaCluster.CLIENT_LISTENER);
                internalPort = boundPort(started, KafkaCluster.INTERNAL_LISTENER);
            }
        } catch (RuntimeException | Error e) {
            stop();
            throw e;
        }
    }

    @Override
    void stop() {
        KafkaExit.expectedDuring(() -> {
            stopNow();
            return null;
        });
    }

    private void stopNow() {
        KafkaRaftServer running = server;
        if (running == null) {
            return;
        }
        try {
            running.shutdown();
            running.awaitShutdown();
        } catch (KafkaExit.Called e) {
            LOG.debug("node {}: its shutdown halted (a fault handler's Exit call)", id, e);
        } catch (RuntimeException e) {
            LOG.warn("node {}: shutdown failed", id, e);
        } finally {
            server = null;
        }
    }

    @Override
    boolean isRunning() {
        return server != null;
    }

    /** KafkaRaftServer keeps its BrokerServer in a private field; the bound port is only known there. */
    private static int boundPort(KafkaRaftServer server, String listener) {
        try {
            Field field = KafkaRaftServer.class.getDeclaredField("broker");
            field.setAccessible(true);
            scala.Option<?> broker = (scala.Option<?>) field.get(server);
            return ((KafkaBroker) broker.get()).boundPort(ListenerName.normalised(listener));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read the bound port of listener " + listener
                    + " (Kafka internals changed?)", e);
        }
    }

    /** This JVM's kafka_2.13 version, from its jar's name (e.g. kafka_2.13-4.4.0.jar), or "unknown". */
    static String kafkaVersion() {
        try {
            String jar = kafka.Kafka.class.getProtectionDomain().getCodeSource().getLocation().getPath();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("kafka_2\\.13-([^/]+)\\.jar$").matcher(jar);
            return m.find() ? m.group(1) : "unknown";
        } catch (RuntimeException | LinkageError e) {
            return "unknown";
        }
    }
}
