package dev.kmeta.testkit;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Asks one given broker for metadata over a plain socket, so that "every broker knows" can be checked broker by
 * broker (an Admin client would ask whichever broker it likes). Used on the INTERNAL listener only.
 */
final class MetadataProbe {

    private static final int TIMEOUT_MS = 5_000;
    /**
     * Metadata v12: what every broker the testkit runs answers (Kafka 3.0 and newer; 4.x still serves it), whatever
     * the kafka-clients of this JVM would pick as its latest.
     */
    private static final short VERSION = 12;

    /** What one broker said: its live brokers, and per asked topic the error code, partition count, leaders. */
    record Answer(Set<Integer> brokers, Map<String, TopicState> topics) {
    }

    /** One topic as a broker sees it. */
    record TopicState(short errorCode, int partitions, int leaderless, Map<Integer, Integer> leaders) {
    }

    private MetadataProbe() {
    }

    static Answer ask(InetSocketAddress broker, List<String> topics) throws IOException {
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, VERSION, "kmeta-testkit-probe", 1);
        ByteBuffer request = new MetadataRequest.Builder(topics, false).build(VERSION).serializeWithHeader(header);
        try (Socket socket = new Socket()) {
            socket.connect(broker, TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(request.remaining());
            out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            MetadataResponse parsed = (MetadataResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
            return toAnswer(parsed.data());
        }
    }

    private static Answer toAnswer(MetadataResponseData data) {
        Set<Integer> brokers = new HashSet<>();
        data.brokers().forEach(b -> brokers.add(b.nodeId()));
        Map<String, TopicState> topics = new HashMap<>();
        for (MetadataResponseData.MetadataResponseTopic topic : data.topics()) {
            int leaderless = 0;
            Map<Integer, Integer> leaders = new HashMap<>();
            for (MetadataResponseData.MetadataResponsePartition p : topic.partitions()) {
                leaders.put(p.partitionIndex(), p.leaderId());
                if (p.leaderId() < 0) {
                    leaderless++;
                }
            }
            topics.put(topic.name(), new TopicState(topic.errorCode(), topic.partitions().size(), leaderless,
                    leaders));
        }
        return new Answer(brokers, topics);
    }
}
