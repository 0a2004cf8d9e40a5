package dev.kmeta.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code kmeta} command line: {@code demo}, {@code lookup}, {@code watch}, {@code doctor}.
 * Not thread-safe; one instance per invocation.
 */
@Command(name = "kmeta", mixinStandardHelpOptions = true,
        description = "A Kafka producer's view of the cluster.",
        subcommands = {DemoCommand.class, LookupCommand.class, WatchCommand.class, DoctorCommand.class})
public final class KmetaCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the CLI and exits the JVM with its exit code. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line (what tests drive with {@code execute} and captured output). */
    public static CommandLine commandLine() {
        return new CommandLine(new KmetaCli());
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
