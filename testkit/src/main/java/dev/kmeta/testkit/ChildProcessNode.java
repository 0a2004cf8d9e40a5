package dev.kmeta.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker running in a child JVM ({@code java -cp <java.class.path> ... kafka.Kafka server.properties}), so that
 * it can be killed hard. Its ports are chosen before it starts. The child exits when this JVM dies (it watches
 * its stdin, see {@link ChildBroker}).
 */
final class ChildProcessNode extends KafkaNode {

    private static final Logger LOG = LoggerFactory.getLogger(ChildProcessNode.class);
    private static final long POLL_MS = 50;

    private volatile Process process;

    ChildProcessNode(int id, Role role, Path dir) {
        super(id, role, dir);
        if (role != Role.BROKER) {
            throw new IllegalArgumentException("only brokers run in child JVMs");
        }
    }

    @Override
    void start(Map<String, String> config, Duration timeout) throws Exception {
        Path file = writeConfig(config);
        Path log = dir.resolve("broker.log");
        ProcessBuilder builder = new ProcessBuilder(command(file))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process started = builder.start();
        process = started;
        try {
            awaitServing(started, timeout, log);
        } catch (Exception | Error e) {
            kill();
            throw e;
        }
    }

    private static List<String> command(Path config) {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        return List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"),
                ChildBroker.class.getName(), config.toString());
    }

    /** Until the broker's own metadata lists it (registered and unfenced), or it died, or time is up. */
    private void awaitServing(Process started, Duration timeout, Path log) throws Exception {
        InetSocketAddress address = new InetSocketAddress(KafkaCluster.LOOPBACK, internalPort);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                throw new IllegalStateException("broker " + id + " (child JVM) exited with " + started.exitValue()
                        + "; its log:\n" + tail(log));
            }
            if (lists(address)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
        throw new IllegalStateException("broker " + id + " (child JVM) not serving after " + timeout
                + "; its log:\n" + tail(log));
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
