package dev.kmeta.cli;

import dev.kmeta.examples.ExampleProducer;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo's load: one thread sending records at a fixed rate, round-robin over the topic's partitions, through the
 * example producer. It remembers which broker acknowledged partition 0's latest record, to show sends continuing on
 * the new leader.
 *
 * <p>Thread-safe: {@link #start()} and {@link #close()} from the demo's thread; the getters from any thread.
 */
final class DemoLoad implements AutoCloseable {
    private final ExampleProducer producer;
    private final String topic;
    private final int partitions;
    private final long periodNs;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile int lastLeaderOfPartition0 = -1;

    DemoLoad(ExampleProducer producer, String topic, int partitions, int recordsPerSecond) {
        this.producer = producer;
        this.topic = topic;
        this.partitions = partitions;
        this.periodNs = TimeUnit.SECONDS.toNanos(1) / recordsPerSecond;
        this.thread = new Thread(this::run, "kmeta-demo-load");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** The broker that acknowledged partition 0's latest acknowledged record, or -1. */
    int lastLeaderOfPartition0() {
        return lastLeaderOfPartition0;
    }

    private void run() {
        long nextNs = System.nanoTime();
        for (long i = 0; running; i++) {
            int partition = (int) (i % partitions);
            byte[] value = ("record-" + i).getBytes(StandardCharsets.UTF_8);
            producer.send(topic, partition, null, value).thenAccept(ack -> {
                if (ack.partition() == 0) {
                    lastLeaderOfPartition0 = ack.leaderId();
                }
            });
            nextNs += periodNs;
            long waitNs = nextNs - System.nanoTime();
            if (waitNs > 0) {
                LockSupport.parkNanos(waitNs); // behind schedule (a send blocked): catch up without waiting
            }
        }
    }

    /** Stops sending and waits for the load thread to end. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(TimeUnit.MINUTES.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
