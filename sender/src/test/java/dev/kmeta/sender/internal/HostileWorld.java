package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A seeded generator of hostile but well-formed metadata scripts for {@link HostileResponsesTest}: a "true" pair of
 * clusters that evolves (leaders move, epochs go up and sometimes really down, topics are deleted and re-created with
 * new ids, partitions are added, brokers come and go, the bootstrap flips to the other cluster), and for each sender
 * round a kafka-clients {@link MetadataResponseData} describing it the way a lagging, confused or buggy broker might:
 * partitions missing, duplicated or stale, leaders not in the broker list, epochs of -1, no broker list, duplicate
 * broker ids, topic and partition error codes, zero, bogus or shared topic ids, duplicate topic entries, unrequested
 * topics, old response versions without epochs, no cluster id.
 *
 * <p>Everything is pre-generated data ({@link Action}s), independent of what the manager does, so a failing script can
 * be replayed and shrunk. Not thread-safe.
 */
final class HostileWorld {
    static final List<String> TOPICS = List.of("t0", "t1", "t2", "t3");
    /** Brokers the clusters really have; leaders 5..7 are never listed. */
    private static final int BROKERS = 5;

    private final Random rnd;
    private final Truth[] clusters;
    private int current;

    HostileWorld(Random rnd) {
        this.rnd = rnd;
        this.clusters = new Truth[] {new Truth("cluster-A"), new Truth("cluster-B")};
    }

    // ------------------------------------------------------------------ actions

    /** One thing that happens to the manager: an application call, fake time passing, or a sender round. */
    interface Action {
    }

    /** {@code awaitTopic(topic, partition, 0 ms)}: subscribes the topic (or probes it). */
    record Subscribe(String topic, int partition) implements Action {
    }

    /** A KIP-951 leader hint from a produce response. */
    record Hint(String topic, int partition, int leaderId, int leaderEpoch, Node endpoint) implements Action {
    }

    /** {@code invalidate(topic, partition)}. */
    record Invalidate(String topic, int partition) implements Action {
    }

    /** {@code requestUpdate()}. */
    record RequestUpdate() implements Action {
    }

    /** Fake time moves on. */
    record Advance(long ms) implements Action {
    }

    /** What happens to the request of one sender round. */
    enum Outcome { ANSWER, FAIL, DISCONNECT }

    /**
     * One sender round: {@code poll}, {@code beginRefresh}, then the request is answered with {@code data} (filtered
     * to the requested topics unless {@code extras}) at {@code version}, fails, or its broker disconnects.
     */
    record Round(Outcome outcome, MetadataResponseData data, short version, boolean extras, int nodeId)
            implements Action {
        @Override
        public String toString() {
            return outcome == Outcome.ANSWER ? "Round(ANSWER v" + version + (extras ? " +extras" : "") + " "
                    + describe(data) + ")" : "Round(" + outcome + (outcome == Outcome.DISCONNECT ? " node " + nodeId
                    : "") + ")";
        }
    }

    /** A script of about {@code answers} sender rounds with application calls in between. */
    List<Action> script(int answers) {
        List<Action> actions = new ArrayList<>();
        int rounds = 0;
        while (rounds < answers) {
            int r = rnd.nextInt(100);
            if (r < 14) {
                actions.add(new Subscribe(topic(), rnd.nextInt(7) - 1));
            } else if (r < 20) {
                actions.add(hint());
            } else if (r < 23) {
                actions.add(new Invalidate(topic(), rnd.nextInt(4)));
            } else if (r < 25) {
                actions.add(new RequestUpdate());
            } else if (r < 30) {
                actions.add(new Advance(rnd.nextInt(100) < 4 ? 6 * 60_000 : rnd.nextInt(3_000)));
            } else {
                actions.add(round());
                rounds++;
            }
        }
        return actions;
    }

    private String topic() {
        return TOPICS.get(rnd.nextInt(TOPICS.size()));
    }

    private Hint hint() {
        Truth w = clusters[current];
        int t = rnd.nextInt(TOPICS.size());
        int p = rnd.nextInt(4);
        int epoch = (p < w.leaders[t].length ? w.epochs[t][p] : 0) + rnd.nextInt(4) - 1;
        int leader = rnd.nextInt(BROKERS + 2);
        Node endpoint = rnd.nextInt(3) == 0 ? new Node(rnd.nextInt(100) < 10 ? leader + 1 : leader, "127.0.0.1",
                19092 + leader) : null;
        return new Hint(TOPICS.get(t), p, rnd.nextInt(100) < 3 ? -1 : leader, epoch, endpoint);
    }

    private Round round() {
        int r = rnd.nextInt(100);
        if (r < 5) {
            return new Round(Outcome.FAIL, null, (short) 0, false, -1);
        }
        if (r < 10) {
            return new Round(Outcome.DISCONNECT, null, (short) 0, false, rnd.nextInt(BROKERS));
        }
        evolve();
        short[] versions = {13, 13, 13, 12, 12, 10, 9, 8, 4};
        short version = rnd.nextInt(100) < 90 ? versions[rnd.nextInt(5)] : versions[5 + rnd.nextInt(4)];
        return new Round(Outcome.ANSWER, response(clusters[current]), version, rnd.nextInt(100) < 5, -1);
    }

    // ------------------------------------------------------------------ the truth

    /** One real cluster: its brokers, and per topic id, leaders and epochs. */
    private final class Truth {
        final String clusterId;
        final boolean[] live = new boolean[BROKERS];
        final Uuid[] ids = new Uuid[TOPICS.size()];
        final boolean[] exists = new boolean[TOPICS.size()];
        final int[][] leaders = new int[TOPICS.size()][];
        final int[][] epochs = new int[TOPICS.size()][];

        Truth(String clusterId) {
            this.clusterId = clusterId;
            java.util.Arrays.fill(live, true);
            for (int t = 0; t < ids.length; t++) {
                create(t);
            }
        }

        void create(int t) {
            ids[t] = new Uuid(rnd.nextLong(), rnd.nextLong());
            exists[t] = true;
            int count = 1 + rnd.nextInt(6);
            leaders[t] = new int[count];
            epochs[t] = new int[count];
            for (int p = 0; p < count; p++) {
                leaders[t][p] = rnd.nextInt(BROKERS);
                epochs[t][p] = rnd.nextInt(3);
            }
        }
    }

    private void evolve() {
        if (rnd.nextInt(100) < 1) {
            current = 1 - current;
        }
        Truth w = clusters[current];
        if (rnd.nextInt(100) < 5) {
            for (int b = 0; b < BROKERS; b++) {
                w.live[b] = rnd.nextInt(100) < 80;
            }
        }
        for (int t = 0; t < TOPICS.size(); t++) {
            int r = rnd.nextInt(100);
            if (!w.exists[t]) {
                if (r < 20) {
                    w.create(t);
                }
                continue;
            }
            if (r < 3) {
                w.create(t); // deleted and re-created: a new id, epochs restart, any count
            } else if (r < 5) {
                w.exists[t] = false;
            } else if (r < 10) {
                int more = 1 + rnd.nextInt(2);
                int n = w.leaders[t].length;
                w.leaders[t] = java.util.Arrays.copyOf(w.leaders[t], n + more);
                w.epochs[t] = java.util.Arrays.copyOf(w.epochs[t], n + more);
                for (int p = n; p < n + more; p++) {
                    w.leaders[t][p] = rnd.nextInt(BROKERS);
                }
            }
            for (int p = 0; p < w.leaders[t].length; p++) {
                int q = rnd.nextInt(100);
                if (q < 10) {
                    w.leaders[t][p] = rnd.nextInt(BROKERS);
                    w.epochs[t][p]++;
                } else if (q < 11) {
                    w.epochs[t][p] = Math.max(0, w.epochs[t][p] - 1 - rnd.nextInt(3)); // a real rollback
                }
            }
        }
    }

    // ------------------------------------------------------------------ hostile answers

    private MetadataResponseData response(Truth w) {
        MetadataResponseData d = new MetadataResponseData()
                .setClusterId(rnd.nextInt(100) < 3 ? null : w.clusterId)
                .setControllerId(rnd.nextInt(BROKERS + 1) - 1);
        if (rnd.nextInt(100) >= 3) {
            brokers(w, d);
        }
        List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3));
        if (rnd.nextInt(100) < 30) {
            Collections.shuffle(order, rnd);
        }
        for (int t : order) {
            d.topics().add(topic(w, t));
        }
        if (rnd.nextInt(100) < 3) {
            MetadataResponseTopic again = topic(w, rnd.nextInt(TOPICS.size()));
            again.setErrorCode(rnd.nextBoolean() ? (short) 3 : again.errorCode());
            d.topics().add(again); // a second entry for one name: the first is taken
        }
        return d;
    }

    private void brokers(Truth w, MetadataResponseData d) {
        for (int b = 0; b < BROKERS; b++) {
            if (w.live[b]) {
                d.brokers().add(broker(b, 19092 + b));
            }
        }
        int r = rnd.nextInt(100);
        if (r < 3) {
            d.brokers().add(broker(rnd.nextInt(BROKERS), 29092)); // a duplicate id: the first is taken
        } else if (r < 5) {
            d.brokers().add(broker(-1 - rnd.nextInt(5), 9092)); // a negative id: dropped
        } else if (r < 6) {
            d.brokers().add(broker(rnd.nextInt(BROKERS + 3), 70_000)); // a port out of range: dropped
        }
    }

    private static MetadataResponseBroker broker(int id, int port) {
        return new MetadataResponseBroker().setNodeId(id).setHost("127.0.0.1").setPort(port);
    }

    private MetadataResponseTopic topic(Truth w, int t) {
        MetadataResponseTopic out = new MetadataResponseTopic().setName(TOPICS.get(t));
        if (!w.exists[t]) {
            return out.setErrorCode((short) 3);
        }
        int r = rnd.nextInt(100);
        if (r < 3) {
            return out.setErrorCode((short) 29);
        } else if (r < 4) {
            return out.setErrorCode((short) 17);
        } else if (r < 8) {
            return out.setErrorCode((short) 5).setTopicId(w.ids[t]);
        } else if (r < 10) {
            return out.setErrorCode((short) 3); // a broker that has not heard of it yet
        } else if (r < 12) {
            out.setErrorCode((short) 5); // an error with partitions all the same
        }
        int id = rnd.nextInt(100);
        out.setTopicId(id < 4 ? Uuid.ZERO_UUID : id < 6 ? new Uuid(rnd.nextLong(), rnd.nextLong())
                : id < 7 ? w.ids[(t + 1) % TOPICS.size()] : w.ids[t]);
        out.setPartitions(partitions(w, t));
        return out;
    }

    private List<MetadataResponsePartition> partitions(Truth w, int t) {
        List<MetadataResponsePartition> out = new ArrayList<>();
        int count = w.leaders[t].length;
        if (rnd.nextInt(100) < 2) {
            count = rnd.nextInt(count); // a truncated list
        }
        for (int p = 0; p < count; p++) {
            if (rnd.nextInt(100) < 8) {
                continue; // missing
            }
            out.add(partition(w, t, p));
        }
        if (!out.isEmpty() && rnd.nextInt(100) < 4) {
            MetadataResponsePartition dup = partition(w, t, out.get(rnd.nextInt(out.size())).partitionIndex());
            out.add(dup.setLeaderId(rnd.nextInt(BROKERS)).setLeaderEpoch(dup.leaderEpoch() + 1));
        }
        if (rnd.nextInt(1000) < 2) {
            out.add(partition(w, t, 0).setPartitionIndex(200_000)); // absurd: the translator drops the topic
        }
        if (rnd.nextInt(100) < 30) {
            Collections.shuffle(out, rnd);
        }
        return out;
    }

    private MetadataResponsePartition partition(Truth w, int t, int p) {
        int leader = w.leaders[t][p];
        int epoch = w.epochs[t][p];
        short error = 0;
        int r = rnd.nextInt(100);
        if (r < 8) {
            epoch = Math.max(0, epoch - 1 - rnd.nextInt(2)); // a lagging broker
            leader = rnd.nextInt(BROKERS);
        } else if (r < 12) {
            epoch = -1;
        } else if (r < 16) {
            leader = -1;
            error = 5;
        } else if (r < 19) {
            leader = BROKERS + rnd.nextInt(3); // not in any broker list
        } else if (r < 22) {
            error = rnd.nextBoolean() ? (short) 9 : (short) 6;
        }
        List<Integer> replicas = List.of(leader < 0 ? 0 : leader, (leader + 1) % BROKERS);
        return new MetadataResponsePartition().setPartitionIndex(p).setLeaderId(leader).setLeaderEpoch(epoch)
                .setErrorCode(error).setReplicaNodes(replicas).setIsrNodes(replicas)
                .setOfflineReplicas(rnd.nextInt(100) < 5 ? List.of(leader) : List.of());
    }

    // ------------------------------------------------------------------ delivery and description

    /** The answer as the broker sends it for {@code requested}: a fresh copy, the request's topics (or all). */
    static MetadataResponseData answer(Round round, Set<String> requested) {
        MetadataResponseData d = round.data();
        MetadataResponseData out = new MetadataResponseData().setClusterId(d.clusterId())
                .setControllerId(d.controllerId());
        for (MetadataResponseBroker b : d.brokers()) {
            out.brokers().add(b.duplicate());
        }
        for (MetadataResponseTopic t : d.topics()) {
            if (round.extras() || requested.contains(t.name())) {
                out.topics().add(t.duplicate());
            }
        }
        return out;
    }

    /** A short description of an answer for failure messages. */
    static String describe(MetadataResponseData d) {
        StringBuilder sb = new StringBuilder(String.valueOf(d.clusterId())).append(" brokers[");
        for (MetadataResponseBroker b : d.brokers()) {
            sb.append(b.nodeId()).append(b.port() == 19092 + b.nodeId() ? "" : ":" + b.port()).append(' ');
        }
        sb.append("]");
        for (MetadataResponseTopic t : d.topics()) {
            sb.append(' ').append(t.name());
            if (t.errorCode() != 0) {
                sb.append(" err").append(t.errorCode());
            }
            if (!Uuid.ZERO_UUID.equals(t.topicId())) {
                sb.append(" id").append(Integer.toHexString(t.topicId().hashCode() & 0xfff));
            }
            sb.append('{');
            for (MetadataResponsePartition p : t.partitions()) {
                sb.append(p.partitionIndex()).append(':').append(p.leaderId()).append('@').append(p.leaderEpoch());
                if (p.errorCode() != 0) {
                    sb.append('!').append(p.errorCode());
                }
                sb.append(' ');
            }
            sb.append('}');
        }
        return sb.toString();
    }
}
