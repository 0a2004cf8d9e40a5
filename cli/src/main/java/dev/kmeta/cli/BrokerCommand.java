package dev.kmeta.cli;

import dev.kmeta.testkit.KafkaCluster;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kmeta broker}: one Kafka broker (KRaft, broker and controller in one node) in this JVM, on a fixed port of
 * 127.0.0.1, for a program of one's own - the README's first snippet - without Docker. Prints the
 * {@code bootstrap.servers} to use and runs until Ctrl-C; its data lives in a temporary folder deleted at the stop.
 * Topics named with {@code --topic} exist from the start; any other is created at its first use, with
 * {@code --partitions} partitions as well.
 *
 * <p>Not thread-safe: one instance per invocation; {@link #stop()} may come from any thread.
 */
@Command(name = "broker", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = VersionProvider.class,
        description = "Run one in-process Kafka broker (KRaft) on 127.0.0.1:PORT for your own program, until Ctrl-C.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped by Ctrl-C", "1:the broker could not start (the port is taken, ...)",
            "2:bad input (unknown option, bad value)"})
final class BrokerCommand implements Callable<Integer> {
    /** Kafka's own default port: what the README's snippet and most examples use. */
    static final int DEFAULT_PORT = 9092;
    static final int MAX_PARTITIONS = 1_000;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--port", defaultValue = "" + DEFAULT_PORT,
            description = "The port on 127.0.0.1 clients bootstrap from (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "3",
            description = "Partitions of each topic, made with --topic or at first use (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--topic", paramLabel = "TOPIC", converter = Converters.TopicName.class,
            description = "A topic to create at the start (repeatable; default orders).")
    List<String> topics = List.of("orders");

    /** How Ctrl-C reaches the command: {@link StopSignal#ctrlC()} when run by {@link KmetaCli#main}; tests fake it. */
    StopSignal stopSignal = StopSignal.none();

    private final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws Exception {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String taken = takenBecause(port);
        if (taken != null) {
            err.println("kmeta broker: port " + port + " of 127.0.0.1 is taken (" + taken + "; a Kafka running "
                    + "already?): give another with --port");
            err.flush();
            return KmetaCli.EXIT_PROBLEM;
        }
        print(out, "kmeta broker: starting a Kafka broker in this JVM (KRaft, one node, 127.0.0.1 only)...");
        Path storage = Files.createTempDirectory("kmeta-broker");
        long startNs = System.nanoTime();
        StopSignal.Subscription ctrlC = stopSignal.onStop(this::stop);
        try (KafkaCluster cluster = KafkaCluster.builder().clientPort(port).autoCreateTopics(true)
                .brokerConfig("num.partitions", Integer.toString(partitions))
                .storageRoot(storage).build().start()) {
            for (String topic : topics) {
                cluster.createTopic(topic, partitions, 1);
            }
            print(out, "bootstrap.servers=" + cluster.bootstrapServers());
            print(out, "Kafka " + cluster.kafkaVersion() + " ready in " + (System.nanoTime() - startNs) / 1_000_000
                    + " ms; topic(s) " + String.join(", ", topics) + " with " + partitions + " partition(s), any "
                    + "other created at its first use. Ctrl-C stops it (its data is deleted).");
            stop.await();
            print(out, "kmeta broker: stopping");
        } finally {
            ctrlC.close();
            DemoCommand.deleteQuietly(storage);
        }
        return KmetaCli.EXIT_OK;
    }

    /** Ends the command: the broker stops and {@link #call()} returns 0 (what Ctrl-C does). Any thread. */
    void stop() {
        stop.countDown();
    }

    private void validate() {
        if (port < 1 || port > 65_535) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--port: '" + port
                    + "' must be in 1..65535");
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--partitions: '" + partitions
                    + "' must be in 1.." + MAX_PARTITIONS);
        }
    }

    /** Why {@code port} of 127.0.0.1 cannot be bound now, or null if it can. */
    private static String takenBecause(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    private static void print(PrintWriter out, String line) {
        out.println(line);
        out.flush();
    }
}
