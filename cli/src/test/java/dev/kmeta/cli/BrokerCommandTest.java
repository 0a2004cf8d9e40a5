package dev.kmeta.cli;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.testkit.KafkaCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kmeta broker} (issue 40): one broker on the port asked for, its {@code bootstrap.servers} printed, a
 * {@code KmetaProducer}'s sends acked - to the topic made at the start and to one created at its first use, with
 * {@code --partitions} partitions each - a second broker on the same port refused, and the stop (Ctrl-C's path) ending
 * the command with 0.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrokerCommandTest {

    @Test
    void theBrokerStartsOnItsPortAndAKmetaProducersSendsAreAcked() throws Exception {
        int port = KafkaCluster.freePort();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = KmetaCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        BrokerCommand broker = cli.getSubcommands().get("broker").getCommand();
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cli.execute("broker", "--port",
                Integer.toString(port), "--partitions", "2"));
        try {
            String bootstrap = "bootstrap.servers=127.0.0.1:" + port;
            await().atMost(Duration.ofSeconds(90)).until(() -> out.toString().contains(bootstrap) || exit.isDone());
            assertTrue(out.toString().lines().anyMatch(bootstrap::equals), out + "\n" + err);

            Map<String, Object> props = new HashMap<>();
            props.put("bootstrap.servers", "127.0.0.1:" + port);
            props.put("max.block.ms", 30_000);
            try (Producer<String, String> producer = KmetaProducer.create(props, new StringSerializer(),
                    new StringSerializer())) {
                RecordMetadata acked = producer.send(new ProducerRecord<>("orders", "key", "value"))
                        .get(30, TimeUnit.SECONDS);
                assertTrue(acked.offset() >= 0 && acked.partition() < 2, acked.toString());
                RecordMetadata firstUse = producer.send(new ProducerRecord<>("my-topic", "key", "value"))
                        .get(30, TimeUnit.SECONDS);
                assertTrue(firstUse.offset() >= 0, firstUse.toString());
                assertEquals(2, producer.partitionsFor("my-topic").size(), "created at its first use, --partitions");
            }

            CliTest.Run second = CliTest.run("broker", "--port", Integer.toString(port));
            assertEquals(KmetaCli.EXIT_PROBLEM, second.exitCode(), second.toString());
            assertTrue(second.err().startsWith("kmeta broker: port " + port + " of 127.0.0.1 is taken ("),
                    second.toString());
        } finally {
            broker.stop();
        }
        assertEquals(KmetaCli.EXIT_OK, exit.get(60, TimeUnit.SECONDS), out + "\n" + err);
        assertTrue(out.toString().contains("kmeta broker: stopping"), out.toString());
    }

    @Test
    void badValuesAreRefusedNamingTheOption() {
        CliTest.assertUsageError(CliTest.run("broker", "--port", "70000"), "kmeta broker: --port: '70000' must be in "
                + "1..65535");
        CliTest.assertUsageError(CliTest.run("broker", "--partitions", "0"), "kmeta broker: --partitions: '0' must be "
                + "in 1..1000");
        CliTest.assertUsageError(CliTest.run("broker", "--topic", "a b"), "not a valid topic name");
        CliTest.assertUsageError(CliTest.run("broker", "--prot", "9092"), "Unknown option: '--prot'",
                "did you mean --port?");
    }
}
