package dev.kmeta.testkit;

import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.MetadataUpdater;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link FakeKafkaClient}'s records, kept by default and not at all with {@link FakeKafkaClient#recordsNothing()},
 * which answers requests as before. No broker: a one-node updater that sends a metadata request whenever it may.
 */
class FakeKafkaClientTest {
    private static final int POLLS = 3;

    @Test
    void byDefaultEverySendIsRecorded() {
        FakeKafkaClient client = new FakeKafkaClient().allConnected().answerDelayMs(0);
        OneNodeUpdater updater = new OneNodeUpdater(client);

        pollAnswered(client, updater);

        assertEquals(List.of("0", "0", "0"), client.sentTo());
        assertEquals(POLLS, client.sendCallsAtMs().size());
    }

    @Test
    void recordingNothingAnswersAsBeforeAndRefusesToShowRecords() {
        FakeKafkaClient client = new FakeKafkaClient().allConnected().answerDelayMs(0).recordsNothing();
        OneNodeUpdater updater = new OneNodeUpdater(client);

        pollAnswered(client, updater);

        assertThrows(IllegalStateException.class, client::sentTo);
        assertThrows(IllegalStateException.class, client::sendCallsAtMs);
        assertThrows(IllegalStateException.class, client::connectionsStarted);
        assertEquals(0, client.unanswered());
        assertEquals(POLLS, client.metadataRequestsSent());
    }

    /** {@link #POLLS} polls, each sending one request that is answered in that poll. */
    private static void pollAnswered(FakeKafkaClient client, OneNodeUpdater updater) {
        MetadataResponse answer = new MetadataResponse(new MetadataResponseData(), (short) 12);
        client.answers(id -> answer);
        for (int i = 0; i < POLLS; i++) {
            assertEquals(1, client.poll(0, client.nowMs()).size(), "poll " + i + " completes its request");
        }
        assertEquals(POLLS, updater.answered);
    }

    /** Sends a metadata request to node 0 on every {@code maybeUpdate}; counts the answers. */
    private static final class OneNodeUpdater implements MetadataUpdater {
        private final FakeKafkaClient client;
        private final List<Node> nodes = List.of(new Node(0, "fake.test", 9092));
        int answered;

        OneNodeUpdater(FakeKafkaClient client) {
            this.client = client;
            client.updater(this);
        }

        @Override
        public List<Node> fetchNodes() {
            return nodes;
        }

        @Override
        public boolean isUpdateDue(long now) {
            return true;
        }

        @Override
        public long maybeUpdate(long now) {
            ClientRequest request = client.newClientRequest("0", MetadataRequest.Builder.allTopics(), now, true,
                    30_000, response -> answered++);
            client.send(request, now);
            return Long.MAX_VALUE;
        }

        @Override
        public void handleServerDisconnect(long now, String nodeId, Optional<AuthenticationException> e) {
            throw new AssertionError("no disconnect expected from " + nodeId);
        }

        @Override
        public void handleFailedRequest(long now, Optional<KafkaException> e) {
            throw new AssertionError("no failed request expected");
        }

        @Override
        public void handleSuccessfulResponse(RequestHeader header, long now, MetadataResponse response) {
            // the completion handler counts
        }

        @Override
        public boolean isBootstrapped() {
            return true;
        }

        @Override
        public void bootstrap(List<InetSocketAddress> addresses) {
            // bootstrapped from the start
        }

        @Override
        public void close() {
            // nothing held
        }
    }
}
