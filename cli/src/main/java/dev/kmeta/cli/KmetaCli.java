package dev.kmeta.cli;

import dev.kmeta.metadata.ConfigException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The {@code kmeta} command line: {@code demo}, {@code lookup}, {@code watch}, {@code doctor}.
 *
 * <p>Exit codes: {@value #EXIT_OK} success, {@value #EXIT_PROBLEM} the command ran and found a problem (a missing
 * topic, a failed check), {@value #EXIT_USAGE} bad input (an unknown option, a bad value, an unreadable file, no
 * cluster given). Bad input is reported as one line on stderr, never a stack trace.
 *
 * <p>Not thread-safe; one instance per invocation.
 */
@Command(name = "kmeta", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A Kafka producer's view of the cluster.",
        subcommands = {DemoCommand.class, LookupCommand.class, WatchCommand.class, DoctorCommand.class})
public final class KmetaCli implements Callable<Integer> {
    /** The command did what was asked and found nothing wrong. */
    public static final int EXIT_OK = 0;
    /** The command ran and found a problem (missing topic, failed check, no answer). */
    public static final int EXIT_PROBLEM = 1;
    /** Bad input: unknown option, bad value, unreadable file, no cluster given. */
    public static final int EXIT_USAGE = 2;

    /** picocli's words for a value a converter refused: the option (or the positional's label), then why. */
    private static final Pattern BAD_VALUE = Pattern.compile(
            "Invalid value for (?:option '([^']+)'|positional parameter at index \\d+ \\(([^)]+)\\)): (.+)");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
            description = "Log on stderr what kmeta (INFO) and kafka-clients (WARN) do; without it no log line is "
                    + "mixed into the output.")
    boolean verbose;

    /** Runs the CLI and exits the JVM with its exit code. */
    public static void main(String[] args) {
        CommandLine commandLine = commandLine();
        WatchCommand watch = commandLine.getSubcommands().get("watch").getCommand();
        watch.stopSignal = StopSignal.ctrlC(); // the real Ctrl-C, only in a process of its own
        System.exit(commandLine.execute(args));
    }

    /** The configured command line (what tests drive with {@code execute} and captured output). */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new KmetaCli());
        commandLine.setParameterExceptionHandler(KmetaCli::onBadParameter);
        commandLine.setExecutionExceptionHandler(KmetaCli::onExecutionException);
        commandLine.setExecutionStrategy(KmetaCli::execute);
        return commandLine;
    }

    /** Logging first (before any logger exists), then the command. */
    private static int execute(ParseResult parsed) {
        boolean verbose = false;
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            verbose |= p.hasMatchedOption("--verbose");
        }
        Logging.configure(verbose);
        return new CommandLine.RunLast().execute(parsed);
    }

    /** {@code kmeta} alone: the usage, on stderr (a command is missing). */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return EXIT_USAGE;
    }

    private static int onBadParameter(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName();
        String message = singleLine(e.getMessage());
        String unknown = e instanceof CommandLine.MissingParameterException ? unknownOption(cmd, args) : null;
        if (unknown != null) { // picocli checks required parameters first: name the typo, not what it displaced
            message = "Unknown option: '" + unknown + "'";
        }
        Matcher badValue = BAD_VALUE.matcher(message);
        if (badValue.matches()) { // a converter's own words say it all: "--duration: '10x' is not a duration; ..."
            String what = badValue.group(1) != null ? badValue.group(1) : badValue.group(2);
            return fail(cmd.getErr(), name + ": " + what + ": " + badValue.group(3), EXIT_USAGE);
        }
        if (message.startsWith("--")) { // a command's own check of an option's value, named first: complete
            return fail(cmd.getErr(), name + ": " + message, EXIT_USAGE);
        }
        return fail(cmd.getErr(), name + ": " + message + " (see " + name + " --help)", EXIT_USAGE);
    }

    /**
     * The first argument after {@code cmd}'s name that looks like an option and is none of {@code cmd}'s (or of its
     * parents', {@code --verbose}), or null. Arguments after {@code --} are parameters.
     */
    static String unknownOption(CommandLine cmd, String[] args) {
        int start = 0;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals(cmd.getCommandName())) {
                start = i + 1;
                break;
            }
        }
        for (int i = start; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                return null;
            }
            if (!arg.startsWith("-") || arg.equals("-")) {
                continue;
            }
            String option = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            boolean known = false;
            for (CommandLine c = cmd; c != null && !known; c = c.getParent()) {
                known = c.getCommandSpec().findOption(option) != null;
            }
            if (!known) {
                return arg;
            }
        }
        return null;
    }

    private static int onExecutionException(Exception e, CommandLine cmd, ParseResult parsed) {
        String name = cmd.getCommandSpec().qualifiedName();
        if (e instanceof UsageException || e instanceof ConfigException
                || e instanceof CommandLine.TypeConversionException) {
            return fail(cmd.getErr(), name + ": " + singleLine(e.getMessage()), EXIT_USAGE);
        }
        return fail(cmd.getErr(), name + ": failed: " + e.getClass().getSimpleName() + ": "
                + Connection.oneLine(e), EXIT_PROBLEM);
    }

    private static int fail(PrintWriter err, String line, int exitCode) {
        err.println(line);
        err.flush();
        return exitCode;
    }

    private static String singleLine(String message) {
        return message == null ? "" : message.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
    }
}
