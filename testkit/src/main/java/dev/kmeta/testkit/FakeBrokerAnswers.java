package dev.kmeta.testkit;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answers of a {@link FakeBroker}'s nodes: reads request frames from a connection, parses them with
 * kafka-clients' message classes, builds each answer from the broker's state and writes it back in order.
 *
 * <p>Thread-safe: holds no state of its own besides the broker and immutable answer parts; one thread serves each
 * connection.
 */
final class FakeBrokerAnswers {
    private static final Logger LOG = LoggerFactory.getLogger(FakeBrokerAnswers.class);
    private static final int MAX_FRAME_BYTES = 100 * 1024 * 1024;
    private static final ApiKeys[] ANSWERED = {ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.INIT_PRODUCER_ID,
        ApiKeys.PRODUCE};

    private final FakeBroker broker;
    /** Replicas (= ISR) by leader: that node and the next ones, up to 3; shared by every partition's answer. */
    private final List<List<Integer>> replicasByLeader = new ArrayList<>();

    FakeBrokerAnswers(FakeBroker broker) {
        this.broker = broker;
        int n = broker.nodeCount();
        int rf = Math.min(3, n);
        for (int leader = 0; leader < n; leader++) {
            List<Integer> r = new ArrayList<>(rf);
            for (int i = 0; i < rf; i++) {
                r.add((leader + i) % n);
            }
            replicasByLeader.add(List.copyOf(r));
        }
    }

    /** Answers the requests of one connection until it closes. */
    void serve(int node, Socket socket) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
        OutputStream out = socket.getOutputStream();
        for (;;) {
            int size;
            try {
                size = in.readInt();
            } catch (java.io.EOFException e) {
                return; // the client closed
            }
            if (size < 8 || size > MAX_FRAME_BYTES) {
                throw new IOException("bad frame size " + size);
            }
            byte[] frame = new byte[size];
            in.readFully(frame);
            ByteBuffer answer = answer(node, ByteBuffer.wrap(frame));
            if (answer != null) {
                byte[] sized = new byte[4 + answer.remaining()];
                ByteBuffer.wrap(sized).putInt(answer.remaining()).put(answer);
                out.write(sized);
                out.flush();
            }
        }
    }

    /** The answer's bytes (header and body, without the size), or null for a request that gets none (acks=0). */
    private ByteBuffer answer(int node, ByteBuffer frame) throws IOException {
        short apiKey = frame.getShort(0);
        short version = frame.getShort(2);
        broker.count(node, apiKey);
        if (!ApiKeys.hasId(apiKey)) {
            throw new IOException("api key " + apiKey + " is unknown to this kafka-clients");
        }
        ApiKeys api = ApiKeys.forId(apiKey);
        if (api == ApiKeys.API_VERSIONS && version > api.latestVersion()) {
            // A newer client's ApiVersions: answer at v0 with our versions, as brokers do (KIP-511).
            ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(frame.getInt(4));
            return RequestUtils.serialize(header, (short) 0, apiVersions(Errors.UNSUPPORTED_VERSION), (short) 0);
        }
        RequestHeader header = RequestHeader.parse(frame);
        ByteBufferAccessor body = new ByteBufferAccessor(frame);
        ApiMessage response;
        switch (api) {
            case API_VERSIONS:
                new ApiVersionsRequestData(body, version);
                response = apiVersions(Errors.NONE);
                break;
            case METADATA:
                response = metadata(new MetadataRequestData(body, version));
                break;
            case INIT_PRODUCER_ID:
                response = initProducerId(new InitProducerIdRequestData(body, version));
                break;
            case PRODUCE:
                ProduceRequestData produce = new ProduceRequestData(body, version);
                response = produce(node, produce, version);
                if (produce.acks() == 0) {
                    return null;
                }
                break;
            default:
                throw new IOException(api + " is not answered by the fake broker (client " + header.clientId()
                        + ")");
        }
        ResponseHeader rh = header.toResponseHeader();
        return RequestUtils.serialize(rh.data(), rh.headerVersion(), response, version);
    }

    private static ApiVersionsResponseData apiVersions(Errors error) {
        ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        for (ApiKeys k : ANSWERED) {
            keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(k.id).setMinVersion(k.oldestVersion())
                    .setMaxVersion(k.latestVersion()));
        }
        return new ApiVersionsResponseData().setErrorCode(error.code()).setApiKeys(keys);
    }

    private MetadataResponseData metadata(MetadataRequestData request) {
        MetadataResponseData r = new MetadataResponseData().setClusterId(broker.clusterId()).setControllerId(0);
        for (int n = 0; n < broker.nodeCount(); n++) {
            r.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(n)
                    .setHost(broker.advertisedHost(n)).setPort(broker.port(n)));
        }
        long partitions = 0;
        if (request.topics() == null) {
            for (FakeBroker.TopicState t : broker.topics()) {
                partitions += addTopic(r, t);
            }
        } else {
            for (MetadataRequestData.MetadataRequestTopic asked : request.topics()) {
                FakeBroker.TopicState t = asked.name() != null ? broker.topic(asked.name())
                        : broker.topic(asked.topicId());
                if (t != null) {
                    if (r.topics().find(t.name()) == null) {
                        partitions += addTopic(r, t);
                    }
                } else if (asked.name() != null) {
                    if (r.topics().find(asked.name()) == null) {
                        r.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(asked.name())
                                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                    }
                } else {
                    r.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(null)
                            .setTopicId(asked.topicId()).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                }
            }
        }
        broker.answeredPartitions(partitions);
        return r;
    }

    private int addTopic(MetadataResponseData r, FakeBroker.TopicState t) {
        MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setName(t.name()).setTopicId(t.id()).setErrorCode(Errors.NONE.code());
        List<MetadataResponseData.MetadataResponsePartition> parts = new ArrayList<>(t.partitions());
        for (int p = 0; p < t.partitions(); p++) {
            int leader = broker.leaderOf(t, p);
            List<Integer> replicas = replicasByLeader.get(broker.homeOf(t, p));
            parts.add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(p)
                    .setErrorCode((leader < 0 ? Errors.LEADER_NOT_AVAILABLE : Errors.NONE).code())
                    .setLeaderId(leader).setLeaderEpoch(t.epoch()).setReplicaNodes(replicas)
                    .setIsrNodes(leader < 0 ? List.of() : replicas).setOfflineReplicas(List.of()));
        }
        topic.setPartitions(parts);
        r.topics().add(topic);
        return t.partitions();
    }

    private InitProducerIdResponseData initProducerId(InitProducerIdRequestData request) {
        if (request.transactionalId() != null) {
            LOG.warn("fake broker: transactional InitProducerId ({}) is not supported", request.transactionalId());
            return new InitProducerIdResponseData().setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                    .setProducerId(-1).setProducerEpoch((short) -1);
        }
        return new InitProducerIdResponseData().setErrorCode(Errors.NONE.code())
                .setProducerId(broker.nextProducerId()).setProducerEpoch((short) 0);
    }

    private ProduceResponseData produce(int node, ProduceRequestData request, short version) {
        ProduceResponseData r = new ProduceResponseData();
        for (ProduceRequestData.TopicProduceData td : request.topicData()) {
            boolean byId = version >= 13;
            FakeBroker.TopicState t = byId ? broker.topic(td.topicId()) : broker.topic(td.name());
            ProduceResponseData.TopicProduceResponse tr = new ProduceResponseData.TopicProduceResponse()
                    .setName(td.name()).setTopicId(td.topicId());
            for (ProduceRequestData.PartitionProduceData pd : td.partitionData()) {
                ProduceResponseData.PartitionProduceResponse pr =
                        new ProduceResponseData.PartitionProduceResponse().setIndex(pd.index()).setBaseOffset(-1);
                if (t == null) {
                    pr.setErrorCode((byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                } else if (pd.index() < 0 || pd.index() >= t.partitions()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else {
                    int leader = broker.leaderOf(t, pd.index());
                    if (leader != node) {
                        pr.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                        if (broker.leaderHints() && leader >= 0) {
                            pr.setCurrentLeader(new ProduceResponseData.LeaderIdAndEpoch().setLeaderId(leader)
                                    .setLeaderEpoch(t.epoch()));
                            if (r.nodeEndpoints().find(leader) == null) {
                                r.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(leader)
                                        .setHost(broker.advertisedHost(leader)).setPort(broker.port(leader)));
                            }
                        }
                    } else {
                        pr.setErrorCode(Errors.NONE.code()).setBaseOffset(broker.takeOffsets(records(pd.records())));
                    }
                }
                tr.partitionResponses().add(pr);
            }
            r.responses().add(tr);
        }
        return r;
    }

    private static long records(BaseRecords records) {
        if (!(records instanceof MemoryRecords)) {
            return records == null ? 0 : 1;
        }
        long n = 0;
        for (RecordBatch b : ((MemoryRecords) records).batches()) {
            n += b.lastOffset() - b.baseOffset() + 1;
        }
        return n;
    }
}
