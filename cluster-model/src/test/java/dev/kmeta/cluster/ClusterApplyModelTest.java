package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A model-based property test of {@link Cluster#apply}: random histories of deltas (topics put, removed and marked,
 * node sets changing, leaders on unknown brokers, topics re-created with new ids, rejected deltas) are applied step
 * by step and every snapshot is compared with a small reference model made of plain maps that applies the
 * documented rules. After each history the incremental snapshot must equal one built from scratch from the model.
 *
 * <p>The histories come from fixed seeds, so a run is deterministic; {@code -Dkmeta.model.seed=N} explores other
 * seeds. A failure is shrunk (steps and changes dropped while it still fails) and reported with its seed.
 */
class ClusterApplyModelTest {
    private static final int HISTORIES = 1000;
    private static final List<String> NAMES = List.of("orders", "payments", "clicks", "audit", "t-4");
    /** Broker ids a node set may hold; leaders are drawn from -1..7, so 6 and 7 are never known. */
    private static final int NODE_IDS = 6;
    private static final int MAX_LEADER = 7;

    @Test
    void incrementalSnapshotsFollowTheReferenceModel() {
        long base = Long.getLong("kmeta.model.seed", 0x6b6d657461L);
        for (int i = 0; i < HISTORIES; i++) {
            long seed = base + i;
            List<Step> history = new Generator(new Random(seed)).history();
            try {
                run(history);
            } catch (AssertionError | RuntimeException e) {
                List<Step> small = shrink(history);
                throw new AssertionError("seed " + seed + ", shrunk history:\n" + describe(small), failure(small));
            }
        }
    }

    @Test
    void theModelCheckCanFail() {
        Model model = new Model();
        model.apply(new Step(List.of(new NodeSpec(0, false)), false, null, null, false,
                List.of(new Put("orders", 1, List.of(new PartSpec(true, 0, 3, false))))));
        Cluster wrong = Cluster.empty().apply(ClusterDelta.builder().nodes(List.of(node(new NodeSpec(0, false))))
                .putTopic(TopicMetadata.of("orders", List.of(PartitionMetadata.of("orders", 0, 0, 4)))).build());
        assertThrows(AssertionError.class, () -> check(model, wrong));
    }

    // ---- one history -------------------------------------------------------------------------------------------

    private static void run(List<Step> history) {
        Model model = new Model();
        Cluster snapshot = Cluster.empty();
        int accepted = 0;
        for (Step step : history) {
            Model before = model.copy();
            ClusterDelta delta = step.toDelta();
            if (step.duplicateNode()) {
                Cluster from = snapshot;
                assertThrows(IllegalArgumentException.class, () -> from.apply(delta));
                check(model, snapshot);
                continue;
            }
            Cluster next = snapshot.apply(delta);
            model.apply(step);
            accepted++;
            assertEquals(snapshot.version() + 1, next.version(), "version");
            check(model, next);
            check(before, snapshot);
            assertUnaffectedTopicsShared(step, snapshot, next);
            snapshot = next;
        }
        assertEquals(accepted, snapshot.version());
        Cluster scratch = Cluster.empty().apply(model.toDelta());
        check(model, scratch);
        assertTrue(snapshot.contentEquals(scratch), "incremental snapshot differs from one built from scratch");
        assertTrue(scratch.contentEquals(snapshot));
    }

    /** Topics the step does not name, and whose leaders all survive its node set, must be the very same objects. */
    private static void assertUnaffectedTopicsShared(Step step, Cluster prev, Cluster next) {
        Set<String> named = step.changes().stream().map(Change::name).collect(Collectors.toSet());
        Set<Integer> newIds = step.nodes() == null ? null
                : step.nodes().stream().map(NodeSpec::id).collect(Collectors.toSet());
        for (String name : prev.topicNames()) {
            TopicMetadata t = prev.topic(name);
            boolean leadersSurvive = newIds == null || t.partitions().stream()
                    .allMatch(p -> !p.hasLeader() || newIds.contains(p.leaderId()));
            if (!named.contains(name) && leadersSurvive) {
                assertSame(t, next.topic(name), "untouched topic " + name + " was copied");
            }
        }
    }

    /** Compares every lookup of the snapshot with the model. */
    private static void check(Model m, Cluster c) {
        assertEquals(m.clusterId, c.clusterId(), "cluster id");
        assertEquals(m.controller, c.controllerId(), "controller id");
        assertEquals(m.nodes.get(m.controller), c.controller(), "controller");
        assertEquals(new ArrayList<>(m.nodes.values()), c.nodes(), "nodes");
        for (int id = -1; id <= MAX_LEADER; id++) {
            assertEquals(m.nodes.get(id), c.node(id), "node " + id);
        }
        assertEquals(m.topics.keySet(), c.topicNames(), "topic names");
        assertEquals(m.unauthorized, c.unauthorizedTopics(), "unauthorized");
        assertEquals(m.invalid, c.invalidTopics(), "invalid");
        for (String name : NAMES) {
            checkTopic(m, c, name);
        }
        for (int n = 0; n < NAMES.size(); n++) {
            for (int gen = 1; gen < 4; gen++) {
                UUID id = topicId(NAMES.get(n), gen);
                String expected = m.topics.values().stream().filter(t -> id.equals(t.id)).map(t -> t.name)
                        .findFirst().orElse(null);
                assertEquals(expected, c.topicName(id), "topicName(" + id + ")");
                assertEquals(expected, c.topic(id) == null ? null : c.topic(id).name(), "topic(" + id + ")");
            }
        }
        for (int node = -1; node <= MAX_LEADER; node++) {
            assertEquals(m.ledBy(node), c.partitionsOnNode(node).stream().map(p -> p.topic() + "-" + p.partition())
                    .collect(Collectors.toSet()), "partitionsOnNode(" + node + ")");
        }
    }

    private static void checkTopic(Model m, Cluster c, String name) {
        ModelTopic t = m.topics.get(name);
        if (t == null) {
            assertEquals(null, c.topic(name), name);
            assertEquals(-1, c.partitionCount(name), name);
            assertEquals(null, c.partition(name, 0), name);
            assertEquals(null, c.topicId(name), name);
            assertTrue(c.availablePartitions(name).isEmpty(), name);
            return;
        }
        assertEquals(t.parts.size(), c.partitionCount(name), name + " partition count");
        assertEquals(t.id, c.topicId(name), name + " id");
        List<Integer> available = new ArrayList<>();
        for (int i = 0; i < t.parts.size(); i++) {
            ModelPartition mp = t.parts.get(i);
            PartitionMetadata p = c.partition(name, i);
            String where = name + "-" + i;
            assertEquals(i, p.partition(), where);
            assertEquals(name, p.topic(), where);
            assertEquals(mp.leader, p.leaderId(), where + " leader");
            assertEquals(mp.epoch, p.leaderEpoch(), where + " epoch");
            assertEquals(mp.error, p.errorCode(), where + " error");
            assertArrayEquals(mp.replicas, p.replicas(), where + " replicas");
            assertArrayEquals(mp.isr, p.inSyncReplicas(), where + " isr");
            assertArrayEquals(mp.offline, p.offlineReplicas(), where + " offline");
            assertEquals(m.nodes.get(mp.leader), c.leader(name, i), where + " leader node");
            if (mp.leader >= 0) {
                available.add(i);
            }
        }
        assertEquals(null, c.partition(name, t.parts.size()), name + " past the end");
        assertEquals(null, c.partition(name, -1), name + " negative");
        assertEquals(available, c.availablePartitions(name).stream().map(PartitionMetadata::partition)
                .collect(Collectors.toList()), name + " available");
    }

    // ---- the reference model -----------------------------------------------------------------------------------

    /** The documented rules on plain maps: last word per name wins, marks exclude metadata, unknown leaders drop. */
    private static final class Model {
        TreeMap<Integer, Node> nodes = new TreeMap<>();
        final TreeMap<String, ModelTopic> topics = new TreeMap<>();
        final TreeSet<String> unauthorized = new TreeSet<>();
        final TreeSet<String> invalid = new TreeSet<>();
        String clusterId;
        int controller = -1;

        Model copy() {
            Model m = new Model();
            m.nodes = new TreeMap<>(nodes);
            topics.forEach((name, t) -> m.topics.put(name, t.copy()));
            m.unauthorized.addAll(unauthorized);
            m.invalid.addAll(invalid);
            m.clusterId = clusterId;
            m.controller = controller;
            return m;
        }

        void apply(Step s) {
            if (s.nodes() != null) {
                nodes = new TreeMap<>();
                s.nodes().forEach(n -> nodes.put(n.id(), node(n)));
            }
            if (s.setsClusterId()) {
                clusterId = s.clusterId();
            }
            if (s.controller() != null) {
                controller = s.controller() < 0 ? -1 : s.controller();
            }
            for (Change c : s.changes()) {
                topics.remove(c.name());
                unauthorized.remove(c.name());
                invalid.remove(c.name());
                if (c instanceof Put) {
                    topics.put(c.name(), ModelTopic.of((Put) c));
                } else if (c instanceof Unauthorized) {
                    unauthorized.add(c.name());
                } else if (c instanceof Invalid) {
                    invalid.add(c.name());
                }
            }
            for (ModelTopic t : topics.values()) {
                for (ModelPartition p : t.parts) {
                    if (!nodes.containsKey(p.leader)) {
                        p.leader = -1;
                    }
                }
            }
        }

        Set<String> ledBy(int node) {
            Set<String> out = new TreeSet<>();
            topics.values().forEach(t -> {
                for (int i = 0; i < t.parts.size(); i++) {
                    if (node >= 0 && t.parts.get(i).leader == node) {
                        out.add(t.name + "-" + i);
                    }
                }
            });
            return out;
        }

        /** The whole state as one delta for the empty snapshot. */
        ClusterDelta toDelta() {
            ClusterDelta.Builder b = ClusterDelta.builder().nodes(nodes.values()).clusterId(clusterId)
                    .controllerId(controller);
            topics.values().forEach(t -> b.putTopic(t.toTopic()));
            unauthorized.forEach(b::unauthorizedTopic);
            invalid.forEach(b::invalidTopic);
            return b.build();
        }
    }

    private static final class ModelTopic {
        final String name;
        final UUID id;
        final List<ModelPartition> parts;

        ModelTopic(String name, UUID id, List<ModelPartition> parts) {
            this.name = name;
            this.id = id;
            this.parts = parts;
        }

        static ModelTopic of(Put put) {
            int count = 0;
            for (int i = 0; i < put.parts().size(); i++) {
                if (put.parts().get(i).present()) {
                    count = i + 1;
                }
            }
            List<ModelPartition> parts = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                PartSpec s = put.parts().get(i);
                parts.add(s.present() ? ModelPartition.of(s, i) : ModelPartition.gap());
            }
            return new ModelTopic(put.name(), topicId(put.name(), put.generation()), parts);
        }

        ModelTopic copy() {
            List<ModelPartition> c = new ArrayList<>();
            parts.forEach(p -> c.add(p.copy()));
            return new ModelTopic(name, id, c);
        }

        TopicMetadata toTopic() {
            List<PartitionMetadata> ps = new ArrayList<>();
            for (int i = 0; i < parts.size(); i++) {
                ModelPartition p = parts.get(i);
                if (p.error == PartitionMetadata.NONE) {
                    ps.add(new PartitionMetadata(name, i, p.leader, p.epoch, p.replicas, p.isr, p.offline, p.error));
                }
            }
            return TopicMetadata.of(name, id, false, PartitionMetadata.NONE, ps);
        }
    }

    private static final class ModelPartition {
        int leader;
        final int epoch;
        final int[] replicas;
        final int[] isr;
        final int[] offline;
        final short error;

        ModelPartition(int leader, int epoch, int[] replicas, int[] isr, int[] offline, short error) {
            this.leader = leader;
            this.epoch = epoch;
            this.replicas = replicas;
            this.isr = isr;
            this.offline = offline;
            this.error = error;
        }

        static ModelPartition of(PartSpec s, int index) {
            int[] replicas = {index % NODE_IDS, (index + 1) % NODE_IDS, (index + 2) % NODE_IDS};
            int[] isr = s.offline() ? new int[] {replicas[0], replicas[1]} : replicas;
            int[] offline = s.offline() ? new int[] {replicas[2]} : new int[0];
            return new ModelPartition(Math.max(-1, s.leader()), Math.max(-1, s.epoch()), replicas, isr, offline,
                    PartitionMetadata.NONE);
        }

        static ModelPartition gap() {
            return new ModelPartition(-1, -1, new int[0], new int[0], new int[0],
                    PartitionMetadata.LEADER_NOT_AVAILABLE);
        }

        ModelPartition copy() {
            return new ModelPartition(leader, epoch, replicas, isr, offline, error);
        }
    }

    // ---- histories ---------------------------------------------------------------------------------------------

    /** A broker of a node set; a moved broker keeps its id and changes its host. */
    record NodeSpec(int id, boolean moved) {
    }

    /** A change to one topic name. */
    sealed interface Change permits Put, Remove, Unauthorized, Invalid {
        String name();
    }

    /** Puts a topic; generation 0 means no topic id, another generation is another incarnation of the topic. */
    record Put(String name, int generation, List<PartSpec> parts) implements Change {
    }

    record Remove(String name) implements Change {
    }

    record Unauthorized(String name) implements Change {
    }

    record Invalid(String name) implements Change {
    }

    /** Partition {@code i} of a put: absent ones make gaps; a leader may be -1 or a broker that never exists. */
    record PartSpec(boolean present, int leader, int epoch, boolean offline) {
    }

    /** One delta; with {@code duplicateNode} its node set repeats an id and the whole delta must be rejected. */
    record Step(List<NodeSpec> nodes, boolean duplicateNode, Integer controller, String clusterId,
                boolean setsClusterId, List<Change> changes) {
        ClusterDelta toDelta() {
            ClusterDelta.Builder b = ClusterDelta.builder();
            if (nodes != null) {
                List<Node> ns = nodes.stream().map(ClusterApplyModelTest::node).collect(Collectors.toList());
                if (duplicateNode) {
                    ns.add(new Node(nodes.isEmpty() ? 0 : nodes.get(0).id(), "duplicate", 1));
                    if (nodes.isEmpty()) {
                        ns.add(new Node(0, "duplicate-too", 2));
                    }
                }
                b.nodes(ns);
            }
            if (controller != null) {
                b.controllerId(controller);
            }
            if (setsClusterId) {
                b.clusterId(clusterId);
            }
            for (Change c : changes) {
                if (c instanceof Put) {
                    b.putTopic(topic((Put) c));
                } else if (c instanceof Remove) {
                    b.removeTopic(c.name());
                } else if (c instanceof Unauthorized) {
                    b.unauthorizedTopic(c.name());
                } else {
                    b.invalidTopic(c.name());
                }
            }
            return b.build();
        }

        Step withChanges(List<Change> newChanges) {
            return new Step(nodes, duplicateNode, controller, clusterId, setsClusterId, newChanges);
        }
    }

    /** Builds the put's topic as a broker would list it: present partitions only, in varying order. */
    private static TopicMetadata topic(Put put) {
        List<PartitionMetadata> ps = new ArrayList<>();
        for (int i = 0; i < put.parts().size(); i++) {
            PartSpec s = put.parts().get(i);
            if (s.present()) {
                ModelPartition p = ModelPartition.of(s, i);
                ps.add(new PartitionMetadata(put.name(), i, s.leader(), s.epoch(), p.replicas, p.isr, p.offline,
                        PartitionMetadata.NONE));
            }
        }
        if (put.generation() % 2 == 1) {
            Collections.reverse(ps);
        }
        return TopicMetadata.of(put.name(), topicId(put.name(), put.generation()), false, PartitionMetadata.NONE,
                ps);
    }

    private static Node node(NodeSpec n) {
        return new Node(n.id(), n.moved() ? "moved-" + n.id() : "broker-" + n.id(), 9092);
    }

    private static UUID topicId(String name, int generation) {
        return generation == 0 ? null : new UUID(NAMES.indexOf(name) + 1, generation);
    }

    /** Random histories of 1 to 8 steps, each with 0 to 4 topic changes. */
    private static final class Generator {
        private final Random r;

        Generator(Random r) {
            this.r = r;
        }

        List<Step> history() {
            List<Step> steps = new ArrayList<>();
            int n = 1 + r.nextInt(8);
            for (int i = 0; i < n; i++) {
                steps.add(step());
            }
            return steps;
        }

        private Step step() {
            List<NodeSpec> nodes = null;
            if (r.nextInt(100) < 35) {
                nodes = new ArrayList<>();
                for (int id = 0; id < NODE_IDS; id++) {
                    if (r.nextInt(10) < 7) {
                        nodes.add(new NodeSpec(id, r.nextInt(5) == 0));
                    }
                }
                Collections.shuffle(nodes, r);
            }
            boolean duplicate = nodes != null && r.nextInt(20) == 0;
            Integer controller = r.nextInt(5) == 0 ? r.nextInt(MAX_LEADER + 2) - 1 : null;
            boolean setsClusterId = r.nextInt(7) == 0;
            String clusterId = setsClusterId ? new String[] {null, "c1", "c2"}[r.nextInt(3)] : null;
            List<Change> changes = new ArrayList<>();
            int count = r.nextInt(5);
            for (int i = 0; i < count; i++) {
                changes.add(change());
            }
            return new Step(nodes, duplicate, controller, clusterId, setsClusterId, changes);
        }

        private Change change() {
            String name = NAMES.get(r.nextInt(NAMES.size()));
            int kind = r.nextInt(10);
            if (kind < 6) {
                List<PartSpec> parts = new ArrayList<>();
                int count = r.nextInt(6);
                for (int i = 0; i < count; i++) {
                    parts.add(new PartSpec(r.nextInt(100) < 85, r.nextInt(MAX_LEADER + 2) - 1, r.nextInt(22) - 1,
                            r.nextInt(5) == 0));
                }
                return new Put(name, r.nextInt(4), parts);
            }
            return kind < 8 ? new Remove(name) : kind < 9 ? new Unauthorized(name) : new Invalid(name);
        }
    }

    // ---- failure reporting -------------------------------------------------------------------------------------

    private static Throwable failure(List<Step> history) {
        try {
            run(history);
            return null;
        } catch (AssertionError | RuntimeException e) {
            return e;
        }
    }

    /** Drops whole steps, then single changes, while the history still fails. */
    private static List<Step> shrink(List<Step> history) {
        List<Step> h = history;
        boolean progress = true;
        while (progress) {
            progress = false;
            for (int i = 0; i < h.size() && !progress; i++) {
                List<Step> candidate = new ArrayList<>(h);
                candidate.remove(i);
                if (!candidate.isEmpty() && failure(candidate) != null) {
                    h = candidate;
                    progress = true;
                }
            }
            for (int i = 0; i < h.size() && !progress; i++) {
                for (int j = 0; j < h.get(i).changes().size() && !progress; j++) {
                    List<Change> changes = new ArrayList<>(h.get(i).changes());
                    changes.remove(j);
                    List<Step> candidate = new ArrayList<>(h);
                    candidate.set(i, h.get(i).withChanges(changes));
                    if (failure(candidate) != null) {
                        h = candidate;
                        progress = true;
                    }
                }
            }
        }
        return h;
    }

    private static String describe(List<Step> history) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < history.size(); i++) {
            sb.append("  step ").append(i + 1).append(": ").append(history.get(i)).append('\n');
        }
        return sb.toString();
    }
}
