package dev.kmeta.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node running in a child JVM ({@code java -cp <class path> ... kafka.Kafka server.properties}), so that it can be
 * killed hard, or run another Kafka version than this JVM's. Its ports are chosen before it starts. The child exits
 * when this JVM dies (it watches its stdin, see {@link ChildBroker}).
 *
 * <p>Without a {@link KafkaDistribution} it is a broker on this JVM's own class path (its controller runs in this
 * JVM). With one, any role runs on that distribution's class path, formatted by that version's own
 * {@code StorageTool} in the child at its first start.
 */
final class ChildProcessNode extends KafkaNode {

    private static final Logger LOG = LoggerFactory.getLogger(ChildProcessNode.class);
    private static final long POLL_MS = 50;
    /**
     * System property: the child JVM's heap and JIT options, separated by spaces, in place of
     * {@value #DEFAULT_JVM_OPTIONS} (small and quick to start, for tests). A broker with tens of thousands of
     * partitions under load (benchmarks) needs more heap, and serves better with G1 and the C2 compiler.
     */
    static final String JVM_OPTIONS_PROPERTY = "kmeta.testkit.child.jvmOptions";
    static final String DEFAULT_JVM_OPTIONS = "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private final KafkaDistribution distribution;
    private volatile Process process;
    /** The cluster id to format the storage with at the next start (distribution nodes format in the child). */
    private volatile String pendingFormat;

    ChildProcessNode(int id, Role role, Path dir, KafkaDistribution distribution) {
        super(id, role, dir);
        this.distribution = distribution;
        if (role != Role.BROKER && distribution == null) {
            throw new IllegalArgumentException("only brokers run in child JVMs on this JVM's class path");
        }
    }

    @Override
    void format(Map<String, String> config, String clusterId) {
        if (distribution == null) {
            super.format(config, clusterId);
            return;
        }
        writeConfig(config);
        pendingFormat = clusterId;
    }

    @Override
    void start(Map<String, String> config, Duration timeout) throws Exception {
        Path file = writeConfig(config);
        Path log = dir.resolve("broker.log");
        ProcessBuilder builder = new ProcessBuilder(command(file, pendingFormat))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process started = builder.start();
        process = started;
        try {
            awaitServing(started, timeout, log);
            pendingFormat = null;
        } catch (Exception | Error e) {
            kill();
            throw e;
        }
    }

    private List<String> command(Path config, String formatClusterId) {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(jvmOptions());
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        // Kafka's and Scala's jars from the build's repository: verifying their bytecode took ~30% of a child's
        // CPU until it served (the test JVM still verifies everything it loads).
        command.addAll(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:-BytecodeVerificationRemote"));
        command.add("-cp");
        command.add(distribution != null ? distribution.classpath() : System.getProperty("java.class.path"));
        command.add(ChildBroker.class.getName());
        if (formatClusterId != null) {
            command.add("--format");
            command.add(formatClusterId);
        }
        command.add(config.toString());
        return command;
    }

    /** The options {@value #JVM_OPTIONS_PROPERTY} names, or {@value #DEFAULT_JVM_OPTIONS} when it is not set. */
    static List<String> jvmOptions() {
        String given = System.getProperty(JVM_OPTIONS_PROPERTY, "").trim();
        return List.of((given.isEmpty() ? DEFAULT_JVM_OPTIONS : given).split("\\s+"));
    }

    /**
     * Until the node serves: a broker (or combined node) once its own metadata lists it (registered and unfenced),
     * a controller once its port accepts connections; or until it died, or time is up.
     */
    private void awaitServing(Process started, Duration timeout, Path log) throws Exception {
        InetSocketAddress address = new InetSocketAddress(KafkaCluster.LOOPBACK, internalPort);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                throw new IllegalStateException("node " + id + " (child JVM) exited with " + started.exitValue()
                        + "; its log:\n" + tail(log));
            }
            if (role.isBroker() ? lists(address) : accepts(controllerPort)) {
                LOG.debug("node {} (child JVM) serving after {} ms, {} ms of CPU", id,
                        ClusterNodes.millisSince(deadline - timeout.toNanos()), started.info().totalCpuDuration()
                                .map(Duration::toMillis).orElse(-1L));
                return;
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
        throw new IllegalStateException("node " + id + " (child JVM) not serving after " + timeout
                + "; its log:\n" + tail(log));
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(KafkaCluster.LOOPBACK, port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private boolean lists(InetSocketAddress address) {
        try {
            return MetadataProbe.ask(address, List.of()).brokers().contains(id);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static String tail(Path log) {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    void stop() {
        Process running = process;
        if (running == null) {
            return;
        }
        running.destroy();
        awaitExit(running, Duration.ofSeconds(30));
    }

    @Override
    void kill() {
        Process running = process;
        if (running == null) {
            return;
        }
        running.destroyForcibly();
        awaitExit(running, Duration.ofSeconds(10));
    }

    private void awaitExit(Process running, Duration timeout) {
        try {
            if (!running.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("broker {} (child JVM) did not exit within {}; killing it", id, timeout);
                running.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            running.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            closeStreams(running);
            process = null;
        }
    }

    private static void closeStreams(Process running) {
        try {
            running.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    boolean isRunning() {
        Process running = process;
        return running != null && running.isAlive();
    }
}
