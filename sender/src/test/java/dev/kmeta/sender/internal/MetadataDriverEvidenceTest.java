package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * {@link MetadataDriver} records that an address answered <em>before</em> the manager publishes the snapshot the
 * answer brings, so any thread that sees the snapshot (an {@code awaitTopic} that returns on it) also sees the answer
 * in the {@link ConnectionEvidence}. RebootstrapTest relied on that and flaked when the evidence came second.
 *
 * <p>The moment between the publish and the rest of the sender's work is caught on the sender thread itself (the
 * test thread, on a {@link FakeKafkaClient}): the refresh state machine logs its transition at DEBUG right after the
 * manager has published the snapshot, so a probe in {@code System.err}, where slf4j-simple writes (looked up at each
 * line), sees exactly what a woken application thread could see at that point. Test-only: relies on slf4j-simple
 * 2.0 internals (as {@link QuietLogs} does) and fails loudly if they are not there.
 */
class MetadataDriverEvidenceTest {
    private static final int DEBUG = 10;

    private final FakeKafkaClient client = new FakeKafkaClient().rebootstrapTriggerMs(Long.MAX_VALUE);
    private final MetadataConfig config = MetadataConfig.from(Map.of("bootstrap.servers", "boot.test:9092",
            "client.id", "evidence-test"));
    private final MetadataManager manager = new MetadataManager(config, client::nanoTime);
    private final MetadataDriver driver = new MetadataDriver(manager, config, new RecordingResolver(host -> {
        throw new UnknownHostException(host); // never asked: the fake client resolves nothing
    }), manager.connections());

    MetadataDriverEvidenceTest() {
        client.updater(driver.nodeProvider());
        driver.attach(client);
    }

    @Test
    void aThreadThatSeesTheSnapshotOfAnAnswerAlsoSeesThatTheAddressAnswered() throws Exception {
        client.answers(id -> answer());
        int versionBefore = manager.fetch().version();
        List<String> seenAfterPublish = new ArrayList<>();
        Runnable probe = () -> {
            if (manager.fetch().version() > versionBefore) {
                ConnectionEvidence.Record r = manager.connections().get("-1");
                seenAfterPublish.add("answers=" + (r == null ? 0 : r.answers()));
            }
        };
        Logger machineLog = LoggerFactory.getLogger("dev.kmeta.metadata.internal.RefreshStateMachine");
        Field level = Class.forName("org.slf4j.simple.SimpleLogger").getDeclaredField("currentLogLevel");
        level.setAccessible(true);
        int savedLevel = level.getInt(machineLog);
        PrintStream savedErr = System.err;
        level.setInt(machineLog, DEBUG);
        System.setErr(new PrintStream(new ProbeStream(probe), true));
        try {
            for (int i = 0; i < 100 && manager.fetch().nodes().isEmpty(); i++) {
                client.poll(driver.step(client.nowMs()), client.nowMs());
            }
        } finally {
            System.setErr(savedErr);
            level.setInt(machineLog, savedLevel);
        }

        assertEquals(List.of("-1"), client.sentTo(), "one request, to the bootstrap address");
        assertFalse(seenAfterPublish.isEmpty(), "the probe ran after the publish (else this test proves nothing)");
        assertEquals("answers=1", seenAfterPublish.get(0), "evidence as seen with the new snapshot: "
                + seenAfterPublish);
    }

    /** Runs the probe at each write (each log line), then drops the bytes. */
    private static final class ProbeStream extends OutputStream {
        private final Runnable probe;

        ProbeStream(Runnable probe) {
            this.probe = probe;
        }

        @Override
        public void write(int b) {
            probe.run();
        }

        @Override
        public void write(byte[] b, int off, int len) {
            probe.run();
        }
    }

    /** A v13 answer: broker 1 at broker1.test:9092, no topics. */
    private static MetadataResponse answer() {
        return MetadataAnswers.cluster("fake-cluster").broker(1, "broker1.test", 9092).response();
    }
}
