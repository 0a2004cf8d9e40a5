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
 * The {@code kmeta} command line: {@code demo}, {@code broker}, {@code lookup}, {@code watch}, {@code doctor}.
 *
 * <p>Exit codes: {@value #EXIT_OK} success, {@value #EXIT_PROBLEM} the command ran and found a problem (a missing
 * topic, a failed check), {@value #EXIT_USAGE} bad input (an unknown option, a bad value, an unreadable file, no
 * cluster given). Bad input is reported as one line on stderr, never a stack trace.
 *
 * <p>Not thread-safe; one instance per invocation.
 */
@Command(name = "kmeta", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A Kafka producer's view of the cluster.",
        subcommands = {DemoCommand.class, BrokerCommand.class, LookupCommand.class, WatchCommand.class,
            DoctorCommand.class})
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
        BrokerCommand broker = commandLine.getSubcommands().get("broker").getCommand();
        broker.stopSignal = StopSignal.ctrlC();
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
        String unknown = unknownOption(cmd, args);
        if (unknown != null) { // picocli took what followed the typo as a value, or checked the required ones first
            String nearest = nearestOption(cmd, unknown);
            return fail(cmd.getErr(), name + ": Unknown option: '" + unknown + "'"
                    + (nearest == null ? "" : "; did you mean " + nearest + "?") + " (see " + name + " --help)",
                    EXIT_USAGE);
        }
        String message = singleLine(e.getMessage());
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getSuggestions().isEmpty()) {
            message += "; did you mean " + String.join(" or ", unmatched.getSuggestions()) + "?"; // a subcommand typo
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
     * parents', {@code --verbose}), or null. Arguments after {@code --} are parameters, and so is the value after an
     * option that takes one (a negative duration, {@code --timeout -5s}) unless it starts with {@code --}: picocli
     * takes an unknown {@code --bootstrap} after {@code --command-config} as the file's name, kmeta names the typo.
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
            CommandLine.Model.OptionSpec known = null;
            for (CommandLine c = cmd; c != null && known == null; c = c.getParent()) {
                known = c.getCommandSpec().findOption(option);
            }
            if (known == null) {
                return arg;
            }
            if (!arg.contains("=") && known.arity().min() > 0 && i + 1 < args.length
                    && !args[i + 1].startsWith("--")) {
                i++; // the option's value
            }
        }
        return null;
    }

    /**
     * The known option of {@code cmd} or its parents (the inherited {@code --verbose}) that {@code unknown} most likely
     * meant, or null (none for a short one, {@code -x}): one it is a start of, or that is a start of it
     * ({@code --bootstrap}, {@code --partition}, {@code --durations}), else the fewest edits away, at most a third of
     * its letters.
     */
    static String nearestOption(CommandLine cmd, String unknown) {
        String typo = unknown.contains("=") ? unknown.substring(0, unknown.indexOf('=')) : unknown;
        if (typo.length() <= 3) {
            return null; // -x: any short option is one letter away
        }
        String best = null;
        int bestScore = Integer.MAX_VALUE;
        for (CommandLine c = cmd; c != null; c = c.getParent()) {
            for (CommandLine.Model.OptionSpec option : c.getCommandSpec().options()) {
                if (c != cmd && !option.inherited() && option.scopeType() != CommandLine.ScopeType.INHERIT) {
                    continue;
                }
                for (String known : option.names()) {
                    int edits = editDistance(typo, known);
                    boolean prefix = known.startsWith(typo) || typo.startsWith(known);
                    int score = prefix ? edits : edits + 1000;
                    if ((prefix || edits <= Math.max(1, typo.length() / 3)) && score < bestScore) {
                        best = known;
                        bestScore = score;
                    }
                }
            }
        }
        return best;
    }

    /** Levenshtein's distance: the fewest insertions, deletions and substitutions making {@code a} {@code b}. */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
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
