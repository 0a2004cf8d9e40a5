package dev.kmeta.bench;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;

/**
 * Debugging aid (-Dp2k.diag=true): what a KafkaProducer's accumulator holds against what its Sender's view shows,
 * read by reflection from another thread, once a period. Not a measurement: it prints to stdout.
 */
final class ProducerDiag {
    private ProducerDiag() {
    }

    static Thread start(Object producer, String name, long periodMs) {
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    System.out.println("  diag " + name + " " + java.time.LocalTime.now() + " " + line(producer));
                    Thread.sleep(periodMs);
                } catch (InterruptedException e) {
                    return;
                } catch (Throwable e) {
                    System.out.println("  diag " + name + ": " + e);
                    return;
                }
            }
        }, "p2k-diag");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static Object field(Object o, String name) throws ReflectiveOperationException {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // up
            }
        }
        throw new NoSuchFieldException(name + " in " + o.getClass());
    }

    @SuppressWarnings("unchecked")
    static String line(Object producer) throws Exception {
        Object accumulator = field(producer, "accumulator");
        Object sender = field(producer, "sender");
        Object metadata = field(producer, "metadata");
        NetworkClient client = (NetworkClient) field(sender, "client");
        Object free = field(accumulator, "free");
        int queued = (int) free.getClass().getMethod("queued").invoke(free);
        long available = (long) free.getClass().getMethod("availableMemory").invoke(free);
        MetadataSnapshot snap = (MetadataSnapshot) metadata.getClass().getMethod("fetchMetadataSnapshot")
                .invoke(metadata);
        Cluster view = snap.cluster();
        Map<String, Object> topicInfos = (Map<String, Object>) field(accumulator, "topicInfoMap");
        int nonEmpty = 0;
        int batches = 0;
        int unknownLeader = 0;
        TreeSet<String> unknownTopics = new TreeSet<>();
        long now = System.currentTimeMillis();
        long oldest = 0;
        for (Map.Entry<String, Object> e : topicInfos.entrySet()) {
            Map<Integer, Deque<?>> parts = (Map<Integer, Deque<?>>) field(e.getValue(), "batches");
            for (Map.Entry<Integer, Deque<?>> p : parts.entrySet()) {
                Deque<?> d = p.getValue();
                Object first;
                int size;
                synchronized (d) {
                    first = d.peekFirst();
                    size = d.size();
                }
                if (first == null) {
                    continue;
                }
                nonEmpty++;
                batches += size;
                long created = (long) field(first, "createdMs");
                oldest = Math.max(oldest, now - created);
                if (view.leaderFor(new TopicPartition(e.getKey(), p.getKey())) == null) {
                    unknownLeader++;
                    unknownTopics.add(e.getKey() + (view.partitionsForTopic(e.getKey()).isEmpty() ? "(absent)"
                            : "(no leader)"));
                }
            }
        }
        List<String> nodes = new ArrayList<>();
        for (Node n : view.nodes()) {
            nodes.add(n.id() + (client.isReady(n, now) ? ":ready" : ":notready")
                    + " inflight=" + client.inFlightRequestCount(n.idString()) + " delay="
                    + client.connectionDelay(n, now));
        }
        String kmeta = "";
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        for (javax.management.ObjectName n : server.queryNames(new javax.management.ObjectName(
                "dev.kmeta:type=metadata,*"), null)) {
            kmeta += " kmeta[sent=" + server.getAttribute(n, "RequestsSent") + " coalesced="
                    + server.getAttribute(n, "RequestsCoalesced") + " fullAge="
                    + server.getAttribute(n, "MetadataAgeSeconds") + " version=" + server.getAttribute(n, "Version")
                    + " lat=" + server.getAttribute(n, "RequestLatencyMaxMs") + "]";
        }
        return kmeta + String.format(" bufferQueued=%d avail=%dKB partsWithBatches=%d batches=%d oldestMs=%d unknownLeader=%d"
                        + " viewTopics=%d nodes=%s unknown=%s", queued, available / 1024, nonEmpty, batches, oldest,
                unknownLeader, view.topics().size(), nodes,
                unknownTopics.size() > 6 ? new ArrayList<>(unknownTopics).subList(0, 6) + "..." : unknownTopics);
    }
}
