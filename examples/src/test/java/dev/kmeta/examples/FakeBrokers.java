package dev.kmeta.examples;

import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.LeastLoadedNode;
import org.apache.kafka.clients.MetadataUpdater;
import org.apache.kafka.clients.RequestCompletionHandler;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.utils.Time;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * A fake kafka-clients {@link KafkaClient} playing three brokers (ids 1-3) on fake time, for {@link NetworkLoop} unit
 * tests: every node is connected and ready; each poll first runs the metadata updater's {@code maybeUpdate} (so
 * kmeta, driven, sends its requests here, as in {@code NetworkClient}), then moves the fake clock to the next due
 * answer (or by the poll timeout; not at all after a {@link #wakeup()}, as a woken selector) and completes what is
 * due. Metadata requests are answered 1 ms later from
 * {@link #leaders} (topic "t"); produce requests after {@link #produceDelayMs} with what {@link #produce} says per
 * partition. Methods the loop and kmeta do not call throw.
 *
 * <p>Not thread-safe: the test thread is the network thread.
 */
final class FakeBrokers implements KafkaClient {
    static final String TOPIC = "t";
    static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    /** One produce request as sent: fake time, node, partitions. */
    record Sent(long atMs, String nodeId, List<Integer> partitions) {
    }

    private long nanos = 1_000_000_000L;
    final Time time = new FakeTime();
    /** Partition index to {leader id, leader epoch}, as the metadata answers give it. */
    final Map<Integer, int[]> leaders = new HashMap<>();
    /** Node id and partition to the partition's answer (default: acked at offset 0). */
    BiFunction<String, Integer, PartitionProduceResponse> produce = (node, p) -> new PartitionProduceResponse();
    /** Node id to its answer delay in ms (default 1). */
    java.util.function.ToLongFunction<String> produceDelayMs = node -> 1;
    final List<Sent> produced = new ArrayList<>();
    int metadataRequests;

    private final MetadataUpdater updater;
    private final List<Pending> pending = new ArrayList<>();
    private int correlationId;
    private boolean woken;

    private record Pending(ClientRequest request, long dueMs, AbstractResponse answer) {
    }

    FakeBrokers(MetadataUpdater updater) {
        this.updater = updater;
    }

    long nowMs() {
        return nanos / 1_000_000L;
    }

    @Override
    public List<ClientResponse> poll(long timeout, long now) {
        now = nowMs(); // the caller's clock may be the system's (kmeta's driver); the fake clock is the one that counts
        long metadataTimeout = updater.maybeUpdate(now);
        long untilMs = now + Math.max(0, Math.min(timeout, metadataTimeout));
        if (woken) { // as a selector woken before it selects: this poll does not wait
            woken = false;
            untilMs = now;
        }
        for (Pending p : pending) {
            untilMs = Math.min(untilMs, Math.max(now, p.dueMs));
        }
        nanos = Math.max(nanos, untilMs * 1_000_000L);
        List<ClientResponse> done = new ArrayList<>();
        for (Pending p : new ArrayList<>(pending)) {
            if (p.dueMs <= nowMs()) {
                pending.remove(p);
                ClientRequest r = p.request;
                done.add(new ClientResponse(r.makeHeader(r.requestBuilder().latestAllowedVersion()), r.callback(),
                        r.destination(), r.createdTimeMs(), nowMs(), false, false, null, null, p.answer));
            }
        }
        for (ClientResponse r : done) {
            r.onComplete();
        }
        return done;
    }

    @Override
    public void send(ClientRequest request, long callerNowMs) {
        long now = nowMs(); // kmeta's driver passes the system clock's time: the fake clock is the one that counts
        AbstractRequest.Builder<?> builder = request.requestBuilder();
        if (builder instanceof MetadataRequest.Builder) {
            metadataRequests++;
            pending.add(new Pending(request, now + 1, metadataAnswer()));
        } else if (builder instanceof ProduceRequest.Builder) {
            ProduceRequestData data = ((ProduceRequest.Builder) builder).build((short) 13).data();
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
            produced.add(new Sent(now, request.destination(), partitions));
            pending.add(new Pending(request, now + produceDelayMs.applyAsLong(request.destination()),
                    new ProduceResponse(answer)));
        } else {
            throw new UnsupportedOperationException(builder.toString());
        }
    }

    private MetadataResponse metadataAnswer() {
        MetadataResponseData d = new MetadataResponseData().setClusterId("fake").setControllerId(1);
        for (int id = 1; id <= 3; id++) {
            d.brokers().add(new MetadataResponseBroker().setNodeId(id).setHost("localhost").setPort(9000 + id));
        }
        MetadataResponseTopic t = new MetadataResponseTopic().setName(TOPIC).setTopicId(TOPIC_ID);
        leaders.forEach((p, leader) -> t.partitions().add(new MetadataResponsePartition().setPartitionIndex(p)
                .setLeaderId(leader[0]).setLeaderEpoch(leader[1]).setReplicaNodes(List.of(1, 2, 3))
                .setIsrNodes(List.of(1, 2, 3))));
        d.topics().add(t);
        return new MetadataResponse(d, (short) 13);
    }

    @Override
    public LeastLoadedNode leastLoadedNode(long now) {
        return new LeastLoadedNode(updater.fetchNodes().get(0), true);
    }

    @Override
    public boolean isReady(Node node, long now) {
        return true;
    }

    @Override
    public boolean ready(Node node, long now) {
        return true;
    }

    @Override
    public long connectionDelay(Node node, long now) {
        return Long.MAX_VALUE;
    }

    @Override
    public ClientRequest newClientRequest(String nodeId, AbstractRequest.Builder<?> requestBuilder,
                                          long createdTimeMs, boolean expectResponse, int requestTimeoutMs,
                                          RequestCompletionHandler callback) {
        return new ClientRequest(nodeId, requestBuilder, ++correlationId, "fake", createdTimeMs, expectResponse,
                requestTimeoutMs, callback);
    }

    @Override
    public void wakeup() {
        woken = true;
    }

    @Override
    public boolean active() {
        return true;
    }

    @Override
    public void close() {
        // nothing held
    }

    // ------------------------------------------------------------------ not used

    @Override
    public void disconnect(String nodeId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long pollDelayMs(Node node, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean connectionFailed(Node node) {
        throw new UnsupportedOperationException();
    }

    @Override
    public AuthenticationException authenticationException(Node node) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close(String nodeId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int inFlightRequestCount() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean hasInFlightRequests() {
        throw new UnsupportedOperationException();
    }

    @Override
    public int inFlightRequestCount(String nodeId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean hasInFlightRequests(String nodeId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean hasReadyNodes(long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ClientRequest newClientRequest(String nodeId, AbstractRequest.Builder<?> requestBuilder,
                                          long createdTimeMs, boolean expectResponse) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void initiateClose() {
        throw new UnsupportedOperationException();
    }

    /** kafka-clients' {@link Time} on the fake clock ({@code MockTime} is only in kafka-clients' test jar). */
    private final class FakeTime implements Time {
        @Override
        public long milliseconds() {
            return nowMs();
        }

        @Override
        public long nanoseconds() {
            return nanos;
        }

        @Override
        public void sleep(long ms) {
            nanos += ms * 1_000_000L;
        }
    }
}
