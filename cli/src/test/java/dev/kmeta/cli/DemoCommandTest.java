package dev.kmeta.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code kmeta demo} end to end: real brokers, a leader stopped midway, every record acknowledged. */
class DemoCommandTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theDemoMovesALeaderAndAcknowledgesEveryRecord() {
        StringWriter output = new StringWriter();
        StringWriter errors = new StringWriter();
        CommandLine cli = KmetaCli.commandLine();
        cli.setOut(new PrintWriter(output));
        cli.setErr(new PrintWriter(errors));

        int exit = cli.execute("demo", "--duration", "10s", "--rate", "300", "--partitions", "3");

        String out = output.toString();
        assertEquals(0, exit, out + errors);
        long statusLines = Pattern.compile("(?m)^\\[ *\\d+s\\] v\\d+ +\\w+ +age +\\d+s \\| leaders .* \\| acked +\\d+ of +\\d+ "
                + "\\| metadata wait p50 \\d+us p99 \\d+us$").matcher(out).results().count();
        assertEquals(10, statusLines, "one status line per second:\n" + out);
        assertTrue(Pattern.compile("leader of kmeta-demo-0 moved: broker (\\d) -> broker (?!\\1)\\d").matcher(out).find(),
                out);
        assertTrue(out.contains("sends continue: partition 0 is acknowledged by broker"), out);
        assertTrue(Pattern.compile("broker \\d is back after \\d+ ms \\(3 brokers running\\)").matcher(out).find(), out);

        Matcher summary = Pattern.compile("summary: sent (\\d+), acked (\\d+), failed (\\d+)").matcher(out);
        assertTrue(summary.find(), out);
        long sent = Long.parseLong(summary.group(1));
        assertEquals(sent, Long.parseLong(summary.group(2)), "acked == sent:\n" + out);
        assertEquals(0, Long.parseLong(summary.group(3)));
        assertTrue(sent >= 10 * 300 * 8 / 10, "about 300 records/s for 10 s: " + sent);
        assertTrue(out.contains("OK: every record was acknowledged"), out);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theKafkaProducerDemoSharesOneInstanceAndCountsTheMetadataRequests() {
        StringWriter output = new StringWriter();
        CommandLine cli = KmetaCli.commandLine();
        cli.setOut(new PrintWriter(output));
        cli.setErr(new PrintWriter(new StringWriter()));

        int exit = cli.execute("demo", "--kafka-producer", "--duration", "10s", "--rate", "300", "--partitions", "3");

        String out = output.toString();
        assertEquals(0, exit, out);
        Matcher summary = Pattern.compile("summary: 3 KafkaProducers on one kmeta instance: sent (\\d+), acked (\\d+), "
                + "failed 0; Metadata requests the brokers received: (\\d+) \\(kmeta sent (\\d+);").matcher(out);
        assertTrue(summary.find(), out);
        assertEquals(summary.group(1), summary.group(2), "acked == sent:\n" + out);
        // Only kmeta asks for metadata: the brokers never receive more than kmeta sent. Fewer is possible: a request
        // kmeta sent to the broker the demo stops can die with its connection before it reaches the proxy.
        int received = Integer.parseInt(summary.group(3));
        int kmetaSent = Integer.parseInt(summary.group(4));
        assertTrue(received >= 1 && received <= kmetaSent, "only kmeta asked for metadata:\n" + out);
        // Narrated as the example producer's demo narrates it: the stop, the move kmeta saw, sends going on, the return.
        assertTrue(Pattern.compile(">> stopping broker (\\d), the leader of kmeta-demo-0, while records flow")
                .matcher(out).find(), out);
        assertTrue(Pattern.compile("leader of kmeta-demo-0 moved: broker (\\d) -> broker (?!\\1)\\d, \\d+ ms after the "
                + "stop began \\(kmeta snapshot v\\d+, \\d+ leader hint\\(s\\) applied by kmeta\\)").matcher(out).find(), out);
        assertTrue(out.contains("sends continue: partition 0 is acknowledged by broker"), out);
        assertTrue(Pattern.compile("broker \\d is back after \\d+ ms \\(3 brokers running\\)").matcher(out).find(), out);
        assertTrue(out.contains("OK: every record was acknowledged"), out);
    }

    @Test
    void badOptionsAreRefusedNamingTheOption() {
        StringWriter errors = new StringWriter();
        CommandLine cli = KmetaCli.commandLine();
        cli.setErr(new PrintWriter(errors));
        assertEquals(2, cli.execute("demo", "--duration", "soon"));
        assertTrue(errors.toString().contains("--duration"), errors.toString());
        assertEquals(2, cli.execute("demo", "--rate", "0"));
        assertTrue(errors.toString().contains("kmeta demo: --rate: '0' must be in 1..100000"), errors.toString());
    }
}
