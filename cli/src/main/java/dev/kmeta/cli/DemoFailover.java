package dev.kmeta.cli;

import dev.kmeta.cluster.Node;
import dev.kmeta.examples.ExampleProducer;
import dev.kmeta.testkit.KafkaCluster;

import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The demo's fault: a clean stop of partition 0's leader while records flow, then its restart. {@link #check} is
 * called once per second and prints each event once, as it happens: the stop, the leader move kmeta saw, the first
 * record acknowledged by the new leader (sends continue), the restart once the broker is down, and its return. The broker stops and starts
 * on a thread of its own (it takes seconds), so the status lines keep coming.
 *
 * <p>Not thread-safe: used by the demo's thread only.
 */
final class DemoFailover {
    private final KafkaCluster cluster;
    private final ExampleProducer producer;
    private final DemoLoad load;
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

    DemoFailover(KafkaCluster cluster, ExampleProducer producer, DemoLoad load, String topic, PrintWriter out) {
        this.cluster = cluster;
        this.producer = producer;
        this.load = load;
        this.topic = topic;
        this.out = out;
    }

    /** Stops the leader of partition 0 (cleanly: its leaderships move away first), on a thread of its own. */
    void stopLeader() {
        oldLeader = cluster.leader(topic, 0);
        ackedAtStop = producer.stats().recordsAcked();
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
        if (restart == null && stop.isDone() && continued) {
            print("broker %d stopped (that took %d ms); restarting it", oldLeader, stop.join());
            restart = timed(() -> cluster.startBroker(oldLeader));
        }
        if (restart != null && restart.isDone() && !back) {
            print("broker %d is back after %d ms (%d brokers running); it rejoins as a follower", oldLeader,
                    restart.join(), cluster.runningBrokerIds().size());
            back = true;
        }
    }

    private void checkMove() {
        Node leader = producer.metadata().fetch().leader(topic, 0);
        if (!moved && leader != null && leader.id() != oldLeader) {
            newLeader = leader.id();
            print("leader of %s-0 moved: broker %d -> broker %d, %d ms after the stop began (kmeta snapshot v%d, "
                            + "%d leader hint(s) fed back from produce answers)", topic, oldLeader, newLeader,
                    millisSinceStop(), producer.metadata().fetch().version(), producer.stats().leaderHintsFed());
            moved = true;
        }
    }

    private void checkSendsContinue() {
        if (moved && !continued && load.lastLeaderOfPartition0() == newLeader) {
            print("sends continue: partition 0 is acknowledged by broker %d; %d records acked since the stop, "
                    + "%d failed", newLeader, producer.stats().recordsAcked() - ackedAtStop,
                    producer.stats().recordsFailed());
            continued = true;
        }
    }

    /** After the load: waits for the stop and the restart to be over (the cluster closes next). */
    void finish() throws Exception {
        if (stop == null) {
            return;
        }
        stop.get(2, TimeUnit.MINUTES);
        continued = true; // the load is over: restart whatever was seen
        check();
        restart.get(2, TimeUnit.MINUTES);
        check();
    }

    /** True once the leader moved and records were acknowledged by the new one. */
    boolean sendsContinued() {
        return moved && load.lastLeaderOfPartition0() == newLeader;
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
