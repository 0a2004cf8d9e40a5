package dev.kmeta.cli;

import dev.kmeta.cluster.Node;
import dev.kmeta.examples.ExampleProducer;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;

import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The demo's fault: a clean stop of partition 0's leader while records flow, then its restart. {@link #check} is
 * called once per second and prints each event once, as it happens: the stop, the leader move kmeta saw, the first
 * record acknowledged by the new leader (sends continue), the restart once the broker is down, and its return. The
 * broker stops and starts on a thread of its own (it takes seconds), so the status lines keep coming. Both demos
 * narrate through it: the example producer's and {@code --kafka-producer}'s ({@link Sends}).
 *
 * <p>Not thread-safe: used by the demo's thread only.
 */
final class DemoFailover {
    /** What the failover reads of the demo's sending: kmeta's instance, the counts, who acknowledged partition 0. */
    interface Sends {
        KafkaMetadata metadata();

        long acked();

        long failed();

        /** KIP-951 leader hints: fed back from produce answers (example producer) or applied by kmeta. */
        long leaderHints();

        /** The broker that acknowledged partition 0's latest acknowledged record, or -1. */
        int lastLeaderOfPartition0();

        /** The example producer's sends. */
        static Sends of(ExampleProducer producer, DemoLoad load) {
            return new Sends() {
                @Override
                public KafkaMetadata metadata() {
                    return producer.metadata();
                }

                @Override
                public long acked() {
                    return producer.stats().recordsAcked();
                }

                @Override
                public long failed() {
                    return producer.stats().recordsFailed();
                }

                @Override
                public long leaderHints() {
                    return producer.stats().leaderHintsFed();
                }

                @Override
                public int lastLeaderOfPartition0() {
                    return load.lastLeaderOfPartition0();
                }
            };
        }
    }

    private final KafkaCluster cluster;
    private final Sends sends;
    private final String hints;
    private final String topic;
    private final PrintWriter out;
    private int oldLeader = -1;
    private int newLeader = -1;
    private long stoppedAtNs;
    private long ackedAtStop;
    private boolean moved;
    private boolean continued;
    private CompletableFuture<Long> stop;
    private CompletableFuture<Long> restart;
    private boolean back;

    /** {@code hints} names what {@link Sends#leaderHints()} counts, for the leader-move line. */
    DemoFailover(KafkaCluster cluster, Sends sends, String hints, String topic, PrintWriter out) {
        this.cluster = cluster;
        this.sends = sends;
        this.hints = hints;
        this.topic = topic;
        this.out = out;
    }

    /** Stops the leader of partition 0 (cleanly: its leaderships move away first), on a thread of its own. */
    void stopLeader() {
        oldLeader = cluster.leader(topic, 0);
        ackedAtStop = sends.acked();
        stoppedAtNs = System.nanoTime();
        print("stopping broker %d, the leader of %s-0, while records flow", oldLeader, topic);
        stop = timed(() -> cluster.stopBroker(oldLeader));
    }

    /** Prints what happened since the last check, and restarts the broker once it stopped and sends went on. */
    void check() {
        if (stop == null) {
            return;
        }
        checkMove();
        checkSendsContinue();
        restartOnceStopped(continued);
        checkBack();
    }

    /** Restarts the stopped broker, once: when sends went on after the move, or when {@code force}d. */
    private void restartOnceStopped(boolean force) {
        if (restart == null && stop.isDone() && force) {
            print("broker %d stopped (that took %d ms); restarting it", oldLeader, stop.join());
            restart = timed(() -> cluster.startBroker(oldLeader));
        }
    }

    private void checkBack() {
        if (restart != null && restart.isDone() && !back) {
            print("broker %d is back after %d ms (%d brokers running); it rejoins as a follower", oldLeader,
                    restart.join(), cluster.runningBrokerIds().size());
            back = true;
        }
    }

    private void checkMove() {
        Node leader = sends.metadata().fetch().leader(topic, 0);
        if (!moved && leader != null && leader.id() != oldLeader) {
            newLeader = leader.id();
            print("leader of %s-0 moved: broker %d -> broker %d, %d ms after the stop began (kmeta snapshot v%d, "
                            + "%d leader hint(s) %s)", topic, oldLeader, newLeader, millisSinceStop(),
                    sends.metadata().fetch().version(), sends.leaderHints(), hints);
            moved = true;
        }
    }

    private void checkSendsContinue() {
        if (moved && !continued && sends.lastLeaderOfPartition0() == newLeader) {
            print("sends continue: partition 0 is acknowledged by broker %d; %d records acked since the stop, "
                    + "%d failed", newLeader, sends.acked() - ackedAtStop, sends.failed());
            continued = true;
        }
    }

    /** After the load: waits for the stop and the restart to be over (the cluster closes next). */
    void finish() throws Exception {
        if (stop == null) {
            return;
        }
        stop.get(2, TimeUnit.MINUTES);
        // Every record is acked or failed by now: a move or a first ack by the new leader that came after the last
        // status line is printed now, before the restart is forced (the load is over: restart whatever was seen).
        checkMove();
        checkSendsContinue();
        restartOnceStopped(true);
        restart.get(2, TimeUnit.MINUTES);
        checkBack();
    }

    /** True once the leader moved and records were acknowledged by the new one (then it was printed). */
    boolean sendsContinued() {
        return continued;
    }

    int oldLeader() {
        return oldLeader;
    }

    int newLeader() {
        return newLeader;
    }

    private long millisSinceStop() {
        return (System.nanoTime() - stoppedAtNs) / 1_000_000;
    }

    private void print(String format, Object... args) {
        out.println("  >> " + String.format(format, args));
        out.flush();
    }

    /** Runs a broker stop or start on a new thread; completes with how long it took, in ms. */
    private static CompletableFuture<Long> timed(Runnable brokerChange) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            long startNs = System.nanoTime();
            try {
                brokerChange.run();
                done.complete((System.nanoTime() - startNs) / 1_000_000);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        }, "kmeta-demo-broker");
        t.setDaemon(true);
        t.start();
        return done;
    }
}
