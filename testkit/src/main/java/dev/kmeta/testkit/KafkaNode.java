package dev.kmeta.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import kafka.tools.StorageTool;

/**
 * One KRaft node of a {@link KafkaCluster}: a broker, a controller, or both. Subclasses run it in this JVM or in
 * a child JVM. Not thread-safe: the cluster serializes lifecycle calls.
 */
abstract class KafkaNode {

    /** What a node does. */
    enum Role {
        BROKER("broker"), CONTROLLER("controller"), COMBINED("broker,controller");

        final String processRoles;

        Role(String processRoles) {
            this.processRoles = processRoles;
        }

        boolean isBroker() {
            return this != CONTROLLER;
        }
    }

    final int id;
    final Role role;
    final Path dir;
    /** Ports of the broker listeners, chosen by the cluster before the first start. Kept across restarts. */
    volatile int clientPort;
    volatile int internalPort;
    /** Port of the CONTROLLER listener of a controller or combined node (0 for a broker). */
    volatile int controllerPort;

    KafkaNode(int id, Role role, Path dir) {
        this.id = id;
        this.role = role;
        this.dir = dir;
    }

    /**
     * Formats the node's storage with the node's first configuration: here with StorageTool in this JVM; a node of
     * another Kafka version formats in its own JVM at its first start instead.
     */
    void format(Map<String, String> config, String clusterId) {
        Path file = writeConfig(config);
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8)) {
            code = StorageTool.execute(new String[] {"format", "-t", clusterId, "-c", file.toString()}, out);
        }
        if (code != 0) {
            throw new IllegalStateException("formatting node " + id + " failed (" + code + "): "
                    + output.toString(StandardCharsets.UTF_8));
        }
    }

    /** Writes {@code server.properties} in the node's directory (sorted, for people reading it). */
    final Path writeConfig(Map<String, String> config) {
        Path file = dir.resolve("server.properties");
        Properties props = new Properties();
        props.putAll(new TreeMap<>(config));
        try {
            Files.createDirectories(dir);
            try (OutputStream out = Files.newOutputStream(file)) {
                props.store(out, "kmeta testkit node " + id);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    /** Starts the node and returns once it serves (a broker: registered and unfenced). */
    abstract void start(Map<String, String> config, Duration timeout) throws Exception;

    /** Clean shutdown (a broker: controlled shutdown); returns when it is down. */
    abstract void stop();

    /** Hard kill, like {@code kill -9}; only possible for nodes in a child JVM. */
    void kill() {
        throw new UnsupportedOperationException("node " + id + " runs in this JVM; killBroker needs "
                + "KafkaCluster.builder().childProcesses(true)");
    }

    abstract boolean isRunning();
}
