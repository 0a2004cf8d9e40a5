package dev.kmeta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line without a cluster: bad input of every kind is one line on stderr and exit 2 (never a stack
 * trace, nothing on stdout), help works, and {@code --embedded} lets a new user try a command with no cluster.
 * {@link #run} is the harness the other cli tests use.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CliTest {

    /** What a run printed and returned. */
    record Run(int exitCode, String out, String err) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).collect(Collectors.toList());
        }

        List<String> outLines() {
            return out.lines().collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
        }
    }

    /** Runs {@code kmeta args...} in this JVM with captured output. */
    static Run run(String... args) {
        return run(KmetaCli.commandLine(), args);
    }

    /** Runs args on a prepared command line (e.g. one whose doctor has a fake resolver). */
    static Run run(CommandLine commandLine, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exit = commandLine.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** Asserts a usage error: exit 2, one line on stderr containing each fragment, no stack trace, no stdout. */
    static Run assertUsageError(Run r, String... fragments) {
        assertEquals(KmetaCli.EXIT_USAGE, r.exitCode(), r.toString());
        assertEquals(1, r.errLines().size(), "one line on stderr: " + r);
        String line = r.errLines().get(0);
        for (String f : fragments) {
            assertTrue(line.contains(f), "'" + f + "' in: " + line);
        }
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception in"), "no stack trace: " + r);
        assertEquals("", r.out(), "nothing on stdout: " + r);
        return r;
    }

    @Test
    void versionNamesKmetaKafkaClientsAndJavaForEveryCommand() {
        String kmetaVersion = System.getProperty("kmeta.test.projectVersion");
        String kafkaVersion = System.getProperty("kmeta.test.kafkaVersion");
        assertTrue(kmetaVersion != null && kafkaVersion != null, "cli/pom.xml passes the build's versions");
        for (String[] args : List.of(new String[] {"-V"}, new String[] {"--version"}, new String[] {"lookup", "-V"},
                new String[] {"watch", "-V"}, new String[] {"doctor", "-V"}, new String[] {"demo", "--version"})) {
            Run r = run(args);

            String command = String.join(" ", args);
            assertEquals(KmetaCli.EXIT_OK, r.exitCode(), command + ": " + r);
            assertEquals("", r.err(), command + ": " + r);
            List<String> lines = r.outLines();
            assertEquals(3, lines.size(), command + ": " + r);
            assertEquals("kmeta " + kmetaVersion, lines.get(0), command);
            assertTrue(lines.get(1).startsWith("kafka-clients " + kafkaVersion + " (commit "), lines.get(1));
            assertFalse(lines.get(1).contains("unknown"), lines.get(1));
            assertTrue(lines.get(2).startsWith("Java " + Runtime.version().feature() + "."), lines.get(2));
            assertTrue(lines.get(2).contains(System.getProperty("java.vm.name")), lines.get(2));
        }
    }

    @Test
    void noClusterGivenIsOneLineAndExit2() {
        for (String command : List.of("lookup", "watch", "doctor")) {
            String[] args = command.equals("lookup") ? new String[] {command, "orders"} : new String[] {command};
            Run r = assertUsageError(run(args), "kmeta " + command + ": ", "--bootstrap-server");
            assertTrue(r.err().contains("--embedded"), r.toString());
        }
    }

    @Test
    void unknownOptionsAndMissingParametersAreOneLineAndExit2() {
        assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:1", "--nope", "orders"), "--nope",
                "kmeta lookup --help");
        assertUsageError(run("watch", "--frobnicate"), "--frobnicate");
        assertUsageError(run("doctor", "--bootstrap-server"), "--bootstrap-server");
        assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:1"), "TOPIC");
        assertUsageError(run("no-such-command"), "no-such-command");
    }

    /**
     * An unknown option is named even when a required parameter is missing too: picocli checks the required ones
     * first, so {@code kmeta lookup --bogus-flag} said "Missing required parameter: 'TOPIC'" and never named the typo.
     */
    @Test
    void anUnknownOptionIsNamedBeforeAMissingParameter() {
        Run r = assertUsageError(run("lookup", "--bogus-flag"), "kmeta lookup: ", "Unknown option: '--bogus-flag'",
                "kmeta lookup --help");
        assertFalse(r.err().contains("TOPIC"), r.toString());
        assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:1", "--bogus=1"), "Unknown option: '--bogus=1'");
        assertFalse(assertUsageError(run("doctor", "-x"), "kmeta doctor: ", "Unknown option: '-x'").err()
                .contains("did you mean"), "no guess for a one-letter option");
    }

    /**
     * An unknown option is reported as one, with the nearest known option, never dropped with its value taken for a
     * parameter: {@code kmeta lookup --bootstrap 127.0.0.1:1 t} said "TOPIC '127.0.0.1:1' not valid" (issue 40).
     */
    @Test
    void anUnknownOptionIsNamedWithTheNearestOneAndItsValueIsNotTakenForAParameter() {
        assertEquals(List.of("kmeta lookup: Unknown option: '--bootstrap'; did you mean --bootstrap-server? "
                + "(see kmeta lookup --help)"), assertUsageError(run("lookup", "--bootstrap", "127.0.0.1:1", "t"))
                .errLines());
        assertUsageError(run("lookup", "--bootstrap", "kafka", "orders"), "Unknown option: '--bootstrap'",
                "did you mean --bootstrap-server?");
        assertUsageError(run("watch", "--bootstrap", "127.0.0.1:1", "orders"), "kmeta watch: ",
                "Unknown option: '--bootstrap'", "did you mean --bootstrap-server?");
        assertUsageError(run("doctor", "--bootstrap=127.0.0.1:1"), "kmeta doctor: ",
                "Unknown option: '--bootstrap=127.0.0.1:1'", "did you mean --bootstrap-server?");
        assertUsageError(run("demo", "--partition", "3"), "kmeta demo: ", "Unknown option: '--partition'",
                "did you mean --partitions?");
        // an unknown option where a value was expected is the typo, not the value
        assertUsageError(run("lookup", "--command-config", "--bootstrap", "127.0.0.1:1", "t"),
                "Unknown option: '--bootstrap'", "did you mean --bootstrap-server?");
        // a value that starts with '-' is still a value
        assertUsageError(run("doctor", "--bootstrap-server", "127.0.0.1:1", "--timeout", "-5s"),
                "kmeta doctor: --timeout: '-5s' is negative");
        assertUsageError(run("watch", "--bootstarp-server", "127.0.0.1:1"), "Unknown option: '--bootstarp-server'",
                "did you mean --bootstrap-server?");
        assertUsageError(run("lookup", "--verbos", "--bootstrap-server", "127.0.0.1:1", "t"),
                "Unknown option: '--verbos'", "did you mean --verbose?"); // kmeta's own, inherited
        assertUsageError(run("lokup", "orders"), "kmeta: ", "'lokup'", "did you mean lookup");
    }

    /** Every option of every command, misspelt by its last letter: named unknown, the real one suggested, exit 2. */
    @Test
    void everyCommandSuggestsTheOptionAMisspeltOneMeant() {
        for (CommandLine sub : KmetaCli.commandLine().getSubcommands().values()) {
            String command = "kmeta " + sub.getCommandName();
            for (CommandLine.Model.OptionSpec option : sub.getCommandSpec().options()) {
                String longName = option.longestName();
                if (!longName.startsWith("--") || longName.length() < 6) {
                    continue;
                }
                String typo = longName.substring(0, longName.length() - 1);
                assertUsageError(run(sub.getCommandName(), typo, "1"), command + ": Unknown option: '" + typo + "'",
                        "did you mean " + longName + "?", "(see " + command + " --help)");
            }
        }
    }

    @Test
    void badTopicNamesAreOneLineAndExit2() {
        List<String> bad = List.of("a b", ".", "..", "x".repeat(Converters.MAX_TOPIC_LENGTH + 1), "tópico",
                "orders/1", "");
        for (String name : bad) {
            assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:1", name), "not a valid topic name");
            assertUsageError(run("doctor", "--bootstrap-server", "127.0.0.1:1", "--topic", name),
                    "not a valid topic name");
            assertUsageError(run("watch", "--bootstrap-server", "127.0.0.1:1", "ok", name),
                    "not a valid topic name");
        }
    }

    @Test
    void topicNameRulesAreKafkas() {
        assertNull(Converters.topicNameProblem("x".repeat(Converters.MAX_TOPIC_LENGTH)));
        assertNull(Converters.topicNameProblem("orders_v2.eu-west-1"));
        assertNull(Converters.topicNameProblem("..."));
        assertTrue(Converters.topicNameProblem("..").contains("not allowed"));
        assertTrue(Converters.topicNameProblem("x".repeat(250)).contains("250 characters"));
        assertTrue(Converters.topicNameProblem("a:b").contains("only ASCII letters"));
    }

    @Test
    void badBootstrapAddressesAndDurationsAreOneLineAndExit2() {
        assertUsageError(run("lookup", "--bootstrap-server", "localhost", "t"), "'localhost' is not host:port");
        assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:99999", "t"), "127.0.0.1:99999");
        assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:1,:2", "t"), "':2'");
        assertEquals(List.of(new HostPort("::1", 9092), new HostPort("kafka", 9093, "SASL_SSL")),
                HostPort.parseList("[::1]:9092, sasl_ssl://kafka:9093"));
        assertUsageError(run("watch", "--bootstrap-server", "127.0.0.1:1", "--interval", "5x"), "'5x'",
                "not a duration");
        assertUsageError(run("watch", "--bootstrap-server", "127.0.0.1:1", "--duration", "0s"), "more than 0");
        assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:1", "orders v2"),
                "kmeta lookup: TOPIC: 'orders v2' is not a valid topic name");
        assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:1", "--embedded", "t"), "exclude");
    }

    /** Kafka accepts {@code PROTOCOL://host:port} in bootstrap.servers, and so does kmeta (it used to say
     * "Invalid value [PLAINTEXT://127.0.0.1]:1", a value the user never typed). */
    @Test
    void aProtocolPrefixIsAcceptedAsKafkaAcceptsIt() {
        Run lookup = run("lookup", "--bootstrap-server", "PLAINTEXT://127.0.0.1:1", "--timeout", "5s", "orders");
        assertEquals(KmetaCli.EXIT_PROBLEM, lookup.exitCode(), lookup.toString());
        assertEquals(1, lookup.errLines().size(), lookup.toString());
        assertTrue(lookup.err().contains("BOOTSTRAP_UNREACHABLE") && lookup.err().contains("127.0.0.1:1"),
                lookup.toString());
        assertFalse(lookup.err().contains("Invalid value") || lookup.err().contains("[PLAINTEXT"), lookup.toString());

        Run doctor = run("doctor", "--bootstrap-server", "plaintext://127.0.0.1:1,EXTERNAL://[::1]:1");
        assertEquals(KmetaCli.EXIT_PROBLEM, doctor.exitCode(), doctor.toString());
        assertEquals("kmeta doctor: 127.0.0.1:1,[::1]:1 (PLAINTEXT)", doctor.outLines().get(0), doctor.toString());
        assertTrue(doctor.out().contains("FAIL  TCP connect to bootstrap 127.0.0.1:1: connection refused"),
                doctor.toString());
    }

    /**
     * A closed port or a name that does not resolve is certain after a few attempts, as doctor knows at once: lookup
     * says so then, one line and exit 1, instead of waiting out the whole --timeout.
     */
    @Test
    void lookupGivesUpOnAHopelessBootstrapWithoutWaitingTheTimeout() {
        long startNs = System.nanoTime();
        Run refused = run("lookup", "--bootstrap-server", "127.0.0.1:1", "--timeout", "30s", "orders");
        long refusedMs = (System.nanoTime() - startNs) / 1_000_000;
        assertEquals(KmetaCli.EXIT_PROBLEM, refused.exitCode(), refused.toString());
        assertEquals(1, refused.errLines().size(), refused.toString());
        assertTrue(refused.err().startsWith("kmeta lookup: no metadata for topic orders (gave up after "), refused.err());
        assertTrue(refused.err().contains(" ms of 30s: every bootstrap address keeps failing, none ever answered): "
                + "BOOTSTRAP_UNREACHABLE: "), refused.err());
        // One count of the attempts in the line: it said "failed 3 times in a row" and "(2 attempt(s))" together.
        assertEquals(1, Pattern.compile("\\d+ times|\\d+ attempt").matcher(refused.err()).results().count(),
                refused.err());
        assertTrue(refusedMs < 15_000, "not the 30 s timeout: " + refusedMs + " ms");

        CommandLine commandLine = KmetaCli.commandLine();
        LookupCommand lookup = commandLine.getSubcommands().get("lookup").getCommand();
        lookup.resolver = host -> {
            throw new java.net.UnknownHostException(host + ": Name or service not known (fake)");
        };
        startNs = System.nanoTime();
        Run dns = run(commandLine, "lookup", "--bootstrap-server", "kafka.invalid:9092", "--timeout", "30s", "orders");
        long dnsMs = (System.nanoTime() - startNs) / 1_000_000;
        assertEquals(KmetaCli.EXIT_PROBLEM, dns.exitCode(), dns.toString());
        assertEquals(1, dns.errLines().size(), dns.toString());
        assertTrue(dns.err().contains("BOOTSTRAP_DNS: ") && dns.err().contains("(fake)"), dns.err());
        assertTrue(dnsMs < 15_000, "not the 30 s timeout: " + dnsMs + " ms");
    }

    @Test
    void aBadOrContradictoryProtocolPrefixIsOneLineAndExit2() {
        assertUsageError(run("lookup", "--bootstrap-server", "PLAINTEXT:/127.0.0.1:1", "t"),
                "kmeta lookup: --bootstrap-server: 'PLAINTEXT:/127.0.0.1:1' is not [PROTOCOL://]host:port (did you "
                        + "mean PLAINTEXT://127.0.0.1:1?)");
        Run once = run("lookup", "--bootstrap-server", "PLAINTEXT:/127.0.0.1:1", "t");
        assertTrue(once.err().strip().endsWith("(did you mean PLAINTEXT://127.0.0.1:1?)"), once.toString());
        assertUsageError(run("lookup", "--bootstrap-server", "PLAINTEXT:127.0.0.1:1", "t"),
                "did you mean PLAINTEXT://127.0.0.1:1?");
        assertUsageError(run("lookup", "--bootstrap-server", "PLAIN TEXT://127.0.0.1:1", "t"),
                "kmeta lookup: --bootstrap-server: 'PLAIN TEXT://127.0.0.1:1' has 'PLAIN TEXT' before '://'");
        assertUsageError(run("lookup", "--bootstrap-server", "://127.0.0.1:1", "t"), "has nothing before '://'");
        assertUsageError(run("lookup", "--bootstrap-server", "SSL://127.0.0.1:1", "t"),
                "kmeta lookup: --bootstrap-server SSL://127.0.0.1:1 asks for SSL, but security.protocol is "
                        + "PLAINTEXT (the default): the prefix does not choose the protocol (Kafka ignores it); set "
                        + "security.protocol=SSL in --command-config, or drop the prefix");
    }

    @Test
    void oneDurationSyntaxForEveryOption() {
        assertEquals(500L, Durations.parsePositiveMillis("500ms"));
        assertEquals(10_000L, Durations.parsePositiveMillis("10"), "a bare number is seconds");
        assertEquals(10_000L, Durations.parsePositiveMillis("10s"));
        assertEquals(120_000L, Durations.parsePositiveMillis("2m"));
        assertEquals(3_600_000L, Durations.parsePositiveMillis("1h"));
        assertEquals(2_000L, Durations.parsePositiveMillis(" 2 S "));
        for (String bad : List.of("10x", "soon", "1.5s", "", "s", "10 seconds")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Durations.parsePositiveMillis(bad));
            assertEquals("'" + bad + "' is not a duration; use e.g. 500ms, 10s, 2m (a bare number is seconds)",
                    e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Durations.parsePositiveMillis("0"))
                .getMessage().contains("'0' must be more than 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Durations.parsePositiveMillis("-1s"))
                .getMessage().contains("'-1s' is negative"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Durations.parsePositiveMillis("99999999h"))
                .getMessage().contains("too long: at most 8760h"));
        assertEquals("1500ms", Durations.format(1_500));
        assertEquals("10s", Durations.format(10_000));
        assertEquals("2m", Durations.format(120_000));
        assertEquals("1h", Durations.format(3_600_000));
    }

    /** The same words, the same unit and exit 2 for --timeout, --interval and --duration in every command. */
    @Test
    void everyDurationOptionSpeaksTheSameSyntax() {
        List<String[]> options = List.of(
                new String[] {"lookup", "--timeout", "t"}, new String[] {"doctor", "--timeout"},
                new String[] {"watch", "--interval"}, new String[] {"watch", "--duration"},
                new String[] {"demo", "--duration"});
        for (String[] o : options) {
            String command = o[0];
            String option = o[1];
            String[] tail = o.length > 2 ? new String[] {o[2]} : new String[0];
            String prefix = "kmeta " + command + ": " + option + ": ";
            Run bad = assertUsageError(run(args(command, option, "10x", tail)), prefix
                    + "'10x' is not a duration; use e.g. 500ms, 10s, 2m");
            assertTrue(bad.errLines().get(0).startsWith(prefix), bad.toString());
            assertUsageError(run(args(command, option, "0", tail)), prefix + "'0' must be more than 0");
            assertUsageError(run(args(command, option, "0s", tail)), prefix + "'0s' must be more than 0");
            assertUsageError(run(args(command, option, "-5s", tail)), prefix + "'-5s' is negative");
        }
        // demo's own bounds, in the same words ("PT0S" nowhere), and a bare number is seconds there too
        Run shortDemo = assertUsageError(run("demo", "--duration", "5"), "kmeta demo: --duration: '5s' is too short");
        assertFalse(shortDemo.err().contains("PT"), shortDemo.toString());
        Run longDemo = assertUsageError(run("demo", "--duration", "20000"),
                "kmeta demo: --duration: '20000s' is too long", "at most 1h");
        assertFalse(longDemo.err().contains("--help"), "the line says it all: " + longDemo);
    }

    /** {@code watch --duration 1} watches for a second (it used to be 1 ms: bare numbers were ms there). */
    @Test
    void aBareNumberIsSecondsInWatchToo() {
        long startNs = System.nanoTime();
        Run r = run("watch", "--bootstrap-server", "127.0.0.1:1", "--interval", "1", "--duration", "1");
        long tookMs = (System.nanoTime() - startNs) / 1_000_000;
        assertEquals(KmetaCli.EXIT_OK, r.exitCode(), r.toString());
        assertTrue(r.outLines().get(0).endsWith(" (every 1s, for 1s)"), r.toString());
        assertTrue(r.outLines().get(r.outLines().size() - 1).endsWith(" stopped"), r.toString());
        assertTrue(tookMs >= 1_000, "watched for a second, not a millisecond: " + tookMs + " ms");
    }

    private static String[] args(String command, String option, String value, String... tail) {
        List<String> a = new java.util.ArrayList<>(List.of(command, option, value));
        if (!command.equals("demo")) {
            a.addAll(List.of("--bootstrap-server", "127.0.0.1:1"));
        }
        a.addAll(List.of(tail));
        return a.toArray(new String[0]);
    }

    @Test
    void unreadableCommandConfigIsOneLineAndExit2(@TempDir Path dir) {
        Path missing = dir.resolve("missing.properties");
        assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:1", "--command-config", missing.toString(),
                "t"), "--command-config", missing.toString(), "no such file");
        assertUsageError(run("doctor", "--bootstrap-server", "127.0.0.1:1", "--command-config", dir.toString()),
                dir.toString(), "not a regular file");
    }

    @Test
    void badValueInCommandConfigNamesTheKeyAndExits2(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("client.properties");
        Files.writeString(config, "metadata.max.age.ms=soon\nsasl.jaas.config=secret-value\n");
        Run r = assertUsageError(run("lookup", "--bootstrap-server", "127.0.0.1:1", "--command-config",
                config.toString(), "t"), "metadata.max.age.ms");
        assertFalse(r.err().contains("secret-value"), "never a credential: " + r);
    }

    @Test
    void helpListsOptionsAndExitCodes() {
        for (String command : List.of("lookup", "watch", "doctor")) {
            Run r = run(command, "--help");
            assertEquals(0, r.exitCode(), r.toString());
            for (String option : List.of("--bootstrap-server", "--command-config", "--embedded", "Exit codes")) {
                assertTrue(r.out().contains(option), command + " help shows " + option + ": " + r);
            }
        }
        Run bare = run();
        assertEquals(KmetaCli.EXIT_USAGE, bare.exitCode(), bare.toString());
        assertTrue(Arrays.stream(new String[] {"lookup", "watch", "doctor", "demo"}).allMatch(bare.err()::contains),
                bare.toString());
    }

    /** A new user with no cluster: --embedded starts one with a demo topic, and lookup answers about it. */
    @Test
    void embeddedClusterAnswersALookup() throws IOException {
        Run r = run("lookup", "--embedded", "--json", Connection.DEMO_TOPIC);
        assertEquals(0, r.exitCode(), r.toString());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals(Connection.DEMO_TOPIC, json.get("topic").asText());
        assertEquals(Connection.DEMO_PARTITIONS, json.get("partitions").size(), r.toString());
        for (JsonNode p : json.get("partitions")) {
            assertEquals(0, p.get("leader").get("id").asInt(), r.toString());
            assertEquals("127.0.0.1", p.get("leader").get("host").asText(), r.toString());
        }
        assertTrue(r.err().contains("embedded cluster ready at 127.0.0.1:"), r.toString());
    }
}
