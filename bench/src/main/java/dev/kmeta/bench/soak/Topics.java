package dev.kmeta.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The topics the senders ask for and the partition count each is expected to reach: set by the fault thread
 * <em>before</em> a topic is created or grown, so that senders wait for what does not exist yet. Thread-safe.
 */
final class Topics {
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final List<String> existing = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> partitions = new ConcurrentHashMap<>();

    /** A topic senders may ask for from now on, expected with {@code count} partitions. */
    void expect(String topic, int count) {
        partitions.put(topic, count);
        asked.add(topic);
    }

    /** The topic exists now. */
    void created(String topic) {
        existing.add(topic);
    }

    /** The topic is expected to grow to {@code count} partitions. */
    void expectPartitions(String topic, int count) {
        partitions.put(topic, count);
    }

    int partitions(String topic) {
        return partitions.get(topic);
    }

    String randomAsked(Random random) {
        return asked.get(random.nextInt(asked.size()));
    }

    String randomExisting(Random random) {
        return existing.get(random.nextInt(existing.size()));
    }

    /** Every topic that exists, at this moment. */
    List<String> existing() {
        return new ArrayList<>(existing);
    }
}
