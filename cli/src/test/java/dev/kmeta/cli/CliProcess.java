package dev.kmeta.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * {@code kmeta} run as a user runs it: {@code dev.kmeta.cli.KmetaCli} in a child JVM with this module's runtime
 * classpath and its own {@code simplelogger.properties}, stdout and stderr read apart (what kafka-clients or kmeta log
 * shows up on stderr, as in a terminal). For what an in-process run cannot see: the logging, exit codes that come from
 * the JVM (a signal), and {@code System.exit}. Not thread-safe; one per child.
 */
final class CliProcess implements AutoCloseable {
    private static final String LINE_END = "\u0000end";

    private final Process process;
    private final BlockingQueue<String> outLines = new LinkedBlockingQueue<>();
    private final List<String> out = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<String> err = java.util.Collections.synchronizedList(new ArrayList<>());
    private final CompletableFuture<Void> outDone;
    private final CompletableFuture<Void> errDone;

    /** What a finished run printed and returned. */
    record Result(int exitCode, List<String> out, List<String> err) {
        List<String> errLines() {
            return err.stream().filter(l -> !l.isBlank()).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- out:\n" + String.join("\n", out) + "\n--- err:\n"
                    + String.join("\n", err);
        }
    }

    private CliProcess(List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(KmetaCli.class.getName());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("KMETA_JAVA_OPTS");
        this.process = builder.start();
        process.getOutputStream().close();
        this.outDone = drain(process.getInputStream(), out, outLines);
        this.errDone = drain(process.getErrorStream(), err, null);
    }

    /** Starts {@code kmeta args...}. */
    static CliProcess start(String... args) {
        try {
            return new CliProcess(List.of(args));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code kmeta args...} to its end (at most {@code timeout}). */
    static Result run(Duration timeout, String... args) {
        try (CliProcess p = start(args)) {
            return p.await(timeout);
        }
    }

    private static CompletableFuture<Void> drain(InputStream stream, List<String> into, BlockingQueue<String> queue) {
        return CompletableFuture.runAsync(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    into.add(line);
                    if (queue != null) {
                        queue.add(line);
                    }
                }
            } catch (IOException e) {
                // the process is gone
            } finally {
                if (queue != null) {
                    queue.add(LINE_END);
                }
            }
        }, runnable -> {
            Thread t = new Thread(runnable, "kmeta-child-output");
            t.setDaemon(true);
            t.start();
        });
    }

    /** The child's process id (to send it a signal). */
    long pid() {
        return process.pid();
    }

    /**
     * Blocks until the child prints a line on stdout that {@code wanted} accepts, and returns it.
     *
     * @throws AssertionError if the child's stdout ends first, or {@code timeout} passes
     */
    String awaitLine(Predicate<String> wanted, Duration timeout) throws InterruptedException {
        long deadlineNs = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = outLines.poll(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null || line.equals(LINE_END)) {
                throw new AssertionError((line == null ? "no such line within " + timeout : "the output ended")
                        + "; so far: out " + out + ", err " + err);
            }
            if (wanted.test(line)) {
                return line;
            }
        }
    }

    /** Waits for the child's end (at most {@code timeout}, then it is killed and the wait fails). */
    Result await(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("kmeta did not end within " + timeout + "; out " + out + ", err " + err);
            }
            outDone.get(10, TimeUnit.SECONDS);
            errDone.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("reading the child's output", e);
        }
        return new Result(process.exitValue(), List.copyOf(out), List.copyOf(err));
    }

    /** Kills the child if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
