package dev.kmeta.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the JDK's {@code keytool} for {@link TestCertificates}, as child processes in one directory: each key store
 * {@code <name>.p12} there is PKCS12, protected by one password, which goes through the environment
 * ({@value #PASSWORD_ENV}), never on a command line other processes could see. Key pairs are EC P-256; keys and
 * certificates are valid from a day ago for 30 days unless the command names its own {@code -validity}.
 *
 * <p>Immutable and thread-safe: commands on different stores may run at once ({@link #async}).
 */
final class Keytool {
    static final String PASSWORD_ENV = "KMETA_KS_PASSWORD";
    private static final long TIMEOUT_S = 60;

    private final Path dir;
    private final String password;
    private final Path executable = Path.of(System.getProperty("java.home"), "bin", "keytool");

    Keytool(Path dir, String password) {
        this.dir = dir;
        this.password = password;
    }

    /** {@link #run} on a pool thread. */
    CompletableFuture<Void> async(String store, String... args) {
        return CompletableFuture.runAsync(() -> run(store, args));
    }

    /**
     * Runs one keytool command on key store {@code <store>.p12}.
     *
     * @throws IllegalStateException if it fails (its output is in the message) or takes over a minute
     */
    void run(String store, String... args) {
        ProcessBuilder pb = new ProcessBuilder(command(store, args)).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put(PASSWORD_ENV, password);
        try {
            Process process = pb.start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool " + args[0] + " did not finish within " + TIMEOUT_S + " s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("keytool " + String.join(" ", args) + " failed ("
                        + process.exitValue() + "): " + new String(output, StandardCharsets.UTF_8).strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + executable, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running keytool", e);
        }
    }

    /** The command line of one keytool command on key store {@code <store>.p12} (the password is not on it). */
    List<String> command(String store, String... args) {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        // A short-lived JVM: skip the optimizing compiler, small heap.
        command.add("-J-XX:TieredStopAtLevel=1");
        command.add("-J-XX:+UseSerialGC");
        command.add("-J-Xmx64m");
        command.addAll(List.of(args));
        boolean dated = List.of(args).contains("-validity");
        if (args[0].equals("-genkeypair")) {
            command.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1"));
        }
        if (args[0].equals("-gencert")) {
            command.add("-rfc");
        }
        if (!dated && (args[0].equals("-genkeypair") || args[0].equals("-gencert"))) {
            command.addAll(List.of("-validity", "30", "-startdate", "-1d"));
        }
        command.addAll(List.of("-keystore", store + ".p12", "-storetype", TestCertificates.STORE_TYPE, "-noprompt"));
        command.addAll(List.of("-storepass:env", PASSWORD_ENV));
        return command;
    }
}
