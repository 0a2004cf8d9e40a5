package dev.kmeta.examples;

import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.ToLongFunction;

/**
 * What three brokers (ids 1-3) with one topic {@value #TOPIC} answer, for {@link NetworkLoop} unit tests on testkit's
 * {@link FakeKafkaClient} (every node connected and ready): metadata answers 1 ms later from {@link #leaders};
 * produce requests after {@link #produceDelayMs} with what {@link #produce} says per partition, each recorded in
 * {@link #produced}.
 *
 * <p>Not thread-safe: the test thread is the network thread.
 */
final class ThreeBrokers {
    static final String TOPIC = "t";
    static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    /** One produce request as sent: fake time, node, partitions. */
    record Sent(long atMs, String nodeId, List<Integer> partitions) {
    }

    /** Partition index to {leader id, leader epoch}, as the metadata answers give it. */
    final Map<Integer, int[]> leaders = new HashMap<>();
    /** Node id and partition to the partition's answer (default: acked at offset 0). */
    BiFunction<String, Integer, PartitionProduceResponse> produce = (node, p) -> new PartitionProduceResponse();
    /** Node id to its answer delay in ms (default 1). */
    ToLongFunction<String> produceDelayMs = node -> 1;
    final List<Sent> produced = new ArrayList<>();
    final FakeKafkaClient client;

    /** The brokers behind {@code client}, which they set up. */
    ThreeBrokers(FakeKafkaClient client) {
        this.client = client.allConnected().answers(id -> metadataAnswer()).otherAnswers(this::produceAnswer);
    }

    /** Metadata requests sent so far. */
    int metadataRequests() {
        return client.sentTo().size();
    }

    private FakeKafkaClient.Reply produceAnswer(ClientRequest request) {
        if (!(request.requestBuilder() instanceof ProduceRequest.Builder builder)) {
            throw new UnsupportedOperationException(request.requestBuilder().toString());
        }
        ProduceRequestData data = builder.build((short) 13).data();
        List<Integer> partitions = new ArrayList<>();
        ProduceResponseData answer = new ProduceResponseData();
        TopicProduceResponse topic = new TopicProduceResponse().setName(TOPIC);
        for (ProduceRequestData.TopicProduceData t : data.topicData()) {
            for (ProduceRequestData.PartitionProduceData p : t.partitionData()) {
                partitions.add(p.index());
                topic.partitionResponses().add(produce.apply(request.destination(), p.index()).setIndex(p.index()));
            }
        }
        answer.responses().add(topic);
        produced.add(new Sent(client.nowMs(), request.destination(), partitions));
        return new FakeKafkaClient.Reply(new ProduceResponse(answer),
                produceDelayMs.applyAsLong(request.destination()));
    }

    private MetadataResponse metadataAnswer() {
        MetadataAnswers answer = MetadataAnswers.cluster("fake").topic(TOPIC, TOPIC_ID, Errors.NONE);
        for (int id = 1; id <= 3; id++) {
            answer.broker(id, "localhost", 9000 + id);
        }
        leaders.forEach((p, leader) -> answer.partition(TOPIC, TOPIC_ID, p, leader[0], leader[1], 1, 2, 3));
        return answer.response();
    }
}
