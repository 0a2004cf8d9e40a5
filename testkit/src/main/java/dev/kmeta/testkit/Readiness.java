package dev.kmeta.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.protocol.Errors;

/**
 * When a {@link KafkaCluster} is ready for what a test does next: every running broker is asked itself (a Metadata
 * request on its INTERNAL listener, a login on its CLIENT listener) until each answer says so, because the Admin client
 * asks one broker and the others learn a little later. Each wait is bounded ({@value #TIMEOUT_S} s) and its timeout
 * names the last answer of every broker.
 *
 * <p>Thread-safe: it keeps no state between calls; the cluster supplies the running brokers and their addresses.
 */
final class Readiness {
    static final int TIMEOUT_S = 30;
    static final Duration TIMEOUT = Duration.ofSeconds(TIMEOUT_S);
    private static final long POLL_MS = 20;

    private final Supplier<List<Integer>> runningBrokers;
    private final IntFunction<InetSocketAddress> internalAddress;
    private final IntFunction<InetSocketAddress> clientAddress;

    Readiness(Supplier<List<Integer>> runningBrokers, IntFunction<InetSocketAddress> internalAddress,
              IntFunction<InetSocketAddress> clientAddress) {
        this.runningBrokers = runningBrokers;
        this.internalAddress = internalAddress;
        this.clientAddress = clientAddress;
    }

    /** Until every running broker knows the topic with this many partitions, each with a leader. */
    void awaitTopicMetadata(String name, int partitions) {
        awaitAllBrokers("topic " + name + " with " + partitions + " partitions, all led", List.of(name), answer -> {
            MetadataProbe.TopicState topic = answer.topics().get(name);
            return topic != null && topic.errorCode() == 0 && topic.partitions() == partitions
                    && topic.leaderless() == 0;
        });
    }

    /** Until no running broker knows the topic any more. */
    void awaitTopicDeleted(String name) {
        short unknown = Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
        awaitAllBrokers("topic " + name + " deleted", List.of(name),
                answer -> answer.topics().get(name) == null || answer.topics().get(name).errorCode() == unknown);
    }

    /** Until every running broker lists every running broker. */
    void awaitBrokersSeeEachOther() {
        Set<Integer> running = Set.copyOf(runningBrokers.get());
        awaitAllBrokers("brokers " + running + " see each other", List.of(),
                answer -> answer.brokers().containsAll(running));
    }

    /** Until every running broker names {@code leaderId} as the partition's leader. */
    void awaitLeaderEverywhere(String topic, int partition, int leaderId) {
        awaitAllBrokers("broker " + leaderId + " leads " + topic + "-" + partition + " for every broker",
                List.of(topic), answer -> {
                    MetadataProbe.TopicState t = answer.topics().get(topic);
                    return t != null && Integer.valueOf(leaderId).equals(t.leaders().get(partition));
                });
    }

    /** Until every running broker's CLIENT listener accepts a connection made with these client properties. */
    void awaitLogin(String what, Map<String, Object> clientProps) {
        Map<Integer, Object> last = new ConcurrentHashMap<>();
        waitUntil(what, () -> {
            boolean all = true;
            for (int id : runningBrokers.get()) {
                LoginProbe.Outcome outcome = LoginProbe.login(clientAddress.apply(id), clientProps,
                        Duration.ofSeconds(5));
                last.put(id, outcome.ready() ? "ok" : outcome.authFailure() != null
                        ? outcome.authFailure().toString() : outcome.other());
                all &= outcome.ready();
            }
            return all;
        }, () -> "last outcomes: " + last);
    }

    /** Until the metadata quorum, asked through {@code admin}, is led by {@code controllerId}. */
    void awaitQuorumLeader(Supplier<Admin> admin, int controllerId) {
        waitUntil("the controller leads the quorum again", () -> {
            try {
                return admin.get().describeMetadataQuorum().quorumInfo().get(POLL_MS * 50, TimeUnit.MILLISECONDS)
                        .leaderId() == controllerId;
            } catch (ExecutionException | TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the controller", e);
            }
        }, () -> "no quorum leader");
    }

    /** Polls every running broker (INTERNAL listener) until each answer satisfies the condition. */
    private void awaitAllBrokers(String what, List<String> topics, Predicate<MetadataProbe.Answer> ok) {
        Map<Integer, Object> last = new ConcurrentHashMap<>();
        waitUntil(what, () -> {
            boolean all = true;
            for (int id : runningBrokers.get()) {
                try {
                    MetadataProbe.Answer answer = MetadataProbe.ask(internalAddress.apply(id), topics);
                    last.put(id, answer);
                    all &= ok.test(answer);
                } catch (IOException | RuntimeException e) {
                    last.put(id, e.toString());
                    all = false;
                }
            }
            return all;
        }, () -> "last answers: " + last);
    }

    /** Polls {@code condition} every 20 ms until it holds, for at most {@value #TIMEOUT_S} s. */
    static void waitUntil(String what, BooleanSupplier condition, Supplier<String> evidence) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + TIMEOUT.toSeconds()
                        + " s waiting for " + what + "; " + evidence.get());
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
