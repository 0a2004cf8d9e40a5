package dev.kmeta.producer;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the KafkaProducer route did for the producers of one kmeta instance, counted since the instance's first
 * producer: views built for them, sends held for a leader and how each hold ended, first requests steered, updates
 * their network threads asked for and how kmeta's answers woke them, leader hints, re-created topics, topics
 * re-checked before a request built once. Read it with {@link KmetaProducer#routeStats}; the same counts are in JMX
 * ({@code dev.kmeta:type=kafka-producer-route-stats,client-id=<id>}, beside the instance's
 * {@code dev.kmeta:type=metadata,client-id=<id>}) and in Micrometer ({@code KmetaRouteMetrics}).
 *
 * <p>An immutable snapshot; thread-safe. Counts of producers closed meanwhile stay in until the instance's last
 * producer closes (then the instance and its route stats are gone).
 */
public final class RouteStats {
    private static final RouteStats EMPTY = new RouteStats(new long[Counter.values().length]);

    /** The counters, in the order {@link #asMap()} lists them; each name is its JMX attribute and meter name. */
    public enum Counter {
        /** Producers of the instance open now (a gauge, not a count). */
        PRODUCERS_OPEN("ProducersOpen", "producers of the instance open now"),
        /** Network-thread views ({@code Cluster} + {@code MetadataSnapshot} of a producer's topics) built. */
        PRODUCER_VIEWS_BUILT("ProducerViewsBuilt", "network-thread views of a producer's topics built"),
        /** Network-thread views a producer took from another producer of the instance on the same topics. */
        PRODUCER_VIEWS_SHARED("ProducerViewsShared", "network-thread views taken from another producer on the same topics"),
        /** kmeta snapshots after which a producer's network-thread view stood as it was. */
        PRODUCER_VIEWS_REUSED("ProducerViewsReused", "snapshots after which a producer's view was reused"),
        /** Single-topic views built for sending threads. */
        TOPIC_VIEWS_BUILT("TopicViewsBuilt", "single-topic views built for sending threads"),
        /** Sends held in {@code send()} because their leader never accepted a connection (or was being tried). */
        SENDS_HELD("SendsHeld", "sends held in send() for a leader that never accepted a connection"),
        /** Holds that ended before {@code max.block.ms} because what kmeta records changed (the leader reachable). */
        HOLDS_RELEASED("HoldsReleased", "holds ended by an event: the leader reachable or moved"),
        /** Holds that reached {@code max.block.ms}: failed with kmeta's diagnosis, or let through unsettled. */
        HOLDS_TIMED_OUT("HoldsTimedOut", "holds that reached max.block.ms"),
        /** Producers' first requests (InitProducerId) sent to a leader of their pending sends. */
        FIRST_REQUESTS_STEERED("FirstRequestsSteered", "first requests sent to a leader of the pending sends"),
        /** Times a producer's network thread waited for kmeta's first answer. */
        FIRST_ANSWER_WAITS("FirstAnswerWaits", "network threads that waited for kmeta's first answer"),
        /** Metadata updates the producers' Senders and NetworkClients asked for. */
        UPDATE_REQUESTS("UpdateRequests", "metadata updates the producers' network threads asked for"),
        /** Of those, refreshes of the Sender's unknown-leader topics only. */
        TARGETED_UPDATES("TargetedUpdates", "updates asked for the unknown-leader topics only"),
        /** Times kmeta's answer woke a producer's network thread that waited for it. */
        NETWORK_THREAD_WAKEUPS("NetworkThreadWakeups", "network threads woken by kmeta's answer"),
        /** KIP-951 leader hints the producers' produce answers carried. */
        LEADER_HINTS("LeaderHints", "KIP-951 leader hints in produce answers"),
        /** Of those, hints older than kmeta's snapshot, dropped before reaching kmeta. */
        STALE_LEADER_HINTS("StaleLeaderHints", "leader hints older than kmeta's snapshot"),
        /** Topics the producers saw deleted and re-created. */
        RECREATIONS_SEEN("RecreationsSeen", "topics seen deleted and re-created"),
        /** Topic refreshes asked to confirm topics before a request built once (sendOffsetsToTransaction). */
        CONFIRMATION_REFRESHES("ConfirmationRefreshes", "refreshes to confirm topics before a request built once"),
        /** Producers {@code KmetaProducer.create} made stock in this JVM (kafka-clients unsupported); JVM-wide. */
        FALLBACKS("Fallbacks", "producers made stock because kafka-clients is not supported (JVM-wide)");

        private final String attribute;
        private final String description;

        Counter(String attribute, String description) {
            this.attribute = attribute;
            this.description = description;
        }

        /** Its JMX attribute name, e.g. {@code SendsHeld}. */
        public String attribute() {
            return attribute;
        }

        /** One line of what it counts. */
        public String description() {
            return description;
        }
    }

    private final long[] values;

    private RouteStats(long[] values) {
        this.values = values;
    }

    /** A snapshot of these values, indexed by {@link Counter#ordinal()}. For kmeta's own use. */
    static RouteStats of(long[] values) {
        if (values.length != Counter.values().length) {
            throw new IllegalArgumentException("expected " + Counter.values().length + " values");
        }
        return new RouteStats(values.clone());
    }

    /** No producer, nothing counted (an instance no KafkaProducer route uses). */
    public static RouteStats empty() {
        return EMPTY;
    }

    /** The value of {@code counter}. */
    public long get(Counter counter) {
        return values[counter.ordinal()];
    }

    /** Producers of the instance open now. */
    public long producersOpen() {
        return get(Counter.PRODUCERS_OPEN);
    }

    /** Sends held in {@code send()} for a leader that never accepted a connection. */
    public long sendsHeld() {
        return get(Counter.SENDS_HELD);
    }

    /** Holds ended by an event before {@code max.block.ms}. */
    public long holdsReleased() {
        return get(Counter.HOLDS_RELEASED);
    }

    /** Holds that reached {@code max.block.ms}. */
    public long holdsTimedOut() {
        return get(Counter.HOLDS_TIMED_OUT);
    }

    /** Network-thread views built. */
    public long producerViewsBuilt() {
        return get(Counter.PRODUCER_VIEWS_BUILT);
    }

    /** First requests steered to a leader of the pending sends. */
    public long firstRequestsSteered() {
        return get(Counter.FIRST_REQUESTS_STEERED);
    }

    /** Topics seen deleted and re-created. */
    public long recreationsSeen() {
        return get(Counter.RECREATIONS_SEEN);
    }

    /** Producers made stock in this JVM because kafka-clients is not supported. */
    public long fallbacks() {
        return get(Counter.FALLBACKS);
    }

    /** Every counter by its attribute name, in {@link Counter} order. */
    public Map<String, Long> asMap() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            out.put(c.attribute(), values[c.ordinal()]);
        }
        return out;
    }

    @Override
    public String toString() {
        return "RouteStats" + asMap();
    }
}
