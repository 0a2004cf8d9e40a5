package dev.kmeta.cli;

import dev.kmeta.cli.CliTest.Run;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

import static dev.kmeta.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kmeta doctor} against a real broker behind a FaultProxy (it advertises the proxy; its real port is the
 * bootstrap): healthy is all OK and exit 0; a missing topic, a bootstrap port nobody listens on, an advertised address
 * that refuses connections and a name that does not resolve (through the resolver hook) each FAIL the right check,
 * name the address, skip what depends on it, and exit 1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DoctorTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().withProxies());

    private static final String TOPIC = "checked";

    @BeforeAll
    static void createTopic() {
        KAFKA.cluster().createTopic(TOPIC, 2, 1);
    }

    private static List<String> checkLines(Run r) {
        return r.outLines().stream().filter(l -> l.matches("^(OK|FAIL|SKIP) .*")).collect(Collectors.toList());
    }

    private static String line(Run r, String start) {
        return r.outLines().stream().filter(l -> l.startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting '" + start + "': " + r));
    }

    /** The line after a FAIL line is its fix. */
    private static void assertFailWithFix(Run r, String start) {
        List<String> lines = r.outLines();
        int i = lines.indexOf(line(r, start));
        assertTrue(lines.get(i + 1).matches("^\\s+fix: .+"), "a fix under " + lines.get(i) + ": " + r);
    }

    @Test
    void healthyClusterIsAllOkAndExit0() {
        KafkaCluster cluster = KAFKA.cluster();
        Run r = run("doctor", "--bootstrap-server", cluster.bootstrapServers(), "--topic", TOPIC);
        assertEquals(0, r.exitCode(), r.toString());
        List<String> checks = checkLines(r);
        assertTrue(checks.size() >= 7, r.toString());
        assertTrue(checks.stream().allMatch(l -> l.startsWith("OK ")), r.toString());
        line(r, "OK    DNS: bootstrap host 127.0.0.1 resolves");
        line(r, "OK    TCP connect to bootstrap " + cluster.bootstrapServers());
        line(r, "OK    metadata response: from " + cluster.bootstrapServers() + ": 1 broker(s)");
        line(r, "OK    advertised broker 0 at " + cluster.proxy(0).address() + " reachable");
        line(r, "OK    topic checked: authorized");
        line(r, "OK    topic checked exists: 2 partition(s)");
        line(r, "OK    topic checked: every partition has a leader: 2 of 2 led");
        line(r, "OK    cluster id: " + cluster.clusterId());
        assertTrue(r.outLines().get(r.outLines().size() - 1).startsWith("healthy: "), r.toString());
    }

    @Test
    void missingTopicFailsAndExits1() {
        Run r = run("doctor", "--bootstrap-server", KAFKA.bootstrapServers(), "--topic", "not-there");
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        line(r, "FAIL  topic not-there exists: topic not-there does not exist");
        assertFailWithFix(r, "FAIL  topic not-there exists");
        line(r, "SKIP  topic not-there: every partition has a leader");
        line(r, "OK    metadata response");
        assertEquals(1, checkLines(r).stream().filter(l -> l.startsWith("FAIL")).count(), r.toString());
    }

    @Test
    void unreachableBootstrapFailsNamingTheAddress() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort(); // free again once closed: nothing listens there
        }
        String address = "127.0.0.1:" + closedPort;
        Run r = run("doctor", "--bootstrap-server", address, "--topic", TOPIC, "--timeout", "3s");
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        assertTrue(line(r, "FAIL  TCP connect to bootstrap " + address).contains("connection refused"),
                r.toString());
        assertFailWithFix(r, "FAIL  TCP connect to bootstrap " + address);
        line(r, "SKIP  metadata response");
        line(r, "SKIP  topic checked exists");
        line(r, "SKIP  cluster id");
    }

    @Test
    void unreachableAdvertisedAddressFailsThatCheck() {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.proxy(0).refuse(); // the broker advertises the proxy; nothing listens there now
        try {
            Run r = run("doctor", "--bootstrap-server", cluster.bootstrapServers(), "--topic", TOPIC);
            assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
            line(r, "OK    TCP connect to bootstrap " + cluster.bootstrapServers());
            line(r, "OK    metadata response");
            String fail = line(r, "FAIL  advertised broker 0 at " + cluster.proxy(0).address() + " reachable");
            assertTrue(fail.contains("connection refused"), r.toString());
            assertTrue(r.out().contains("advertised.listeners"), "the fix names the setting: " + r);
            line(r, "SKIP  topic checked exists: no advertised broker address is reachable");
        } finally {
            cluster.proxy(0).pass();
        }
    }

    @Test
    void nameThatDoesNotResolveFailsTheDnsCheck() {
        CommandLine commandLine = KmetaCli.commandLine();
        DoctorCommand doctor = commandLine.getSubcommands().get("doctor").getCommand();
        doctor.resolver = host -> {
            if (host.equals("kafka.invalid")) {
                throw new UnknownHostException(host + ": Name or service not known (fake)");
            }
            throw new AssertionError("only the fake name is resolved here: " + host);
        };
        Run r = run(commandLine, "doctor", "--bootstrap-server", "kafka.invalid:9092", "--topic", TOPIC);
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        assertTrue(line(r, "FAIL  DNS: bootstrap host kafka.invalid resolves").contains("(fake)"), r.toString());
        assertFailWithFix(r, "FAIL  DNS: bootstrap host kafka.invalid resolves");
        line(r, "SKIP  metadata response: no bootstrap host name resolves");
        assertEquals(1, checkLines(r).stream().filter(l -> l.startsWith("FAIL")).count(), r.toString());
    }
}
