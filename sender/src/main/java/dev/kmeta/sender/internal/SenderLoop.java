package dev.kmeta.sender.internal;

import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.MetadataManager;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kmeta's own sender thread: owns a kafka-clients {@link NetworkClient} and runs {@link MetadataDriver#step} and
 * {@code client.poll} in turn until the manager is closed, then closes every socket. The client runs on the
 * manager's {@code Ticker} ({@link KafkaTime}), so the sender has one clock.
 *
 * <p>Confined to its own thread; {@link #wakeup()} and {@link #rebootstraps()} may be called from any thread.
 */
@SuppressKafkaInternalApiUsage("runs kmeta's own NetworkClient (poll, ApiVersions, Time) on the sender thread")
public final class SenderLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(SenderLoop.class);

    private final MetadataManager manager;
    private final MetadataConfig config;
    private final MetadataDriver driver;
    private final NetworkClient client;
    private final Metrics metrics;
    /** kafka-clients' view of the instance's ticker: the client, its metrics and each step run on it. */
    private final Time time;
    /** Polls that threw after an identity refusal (logged at WARN once, then at DEBUG). */
    private long pollsLostToRefusals;

    /** Builds the transport from the manager's config; the loop starts when {@link #run()} runs on a thread. */
    SenderLoop(MetadataManager manager, MetadataConfig config, RecordingResolver resolver,
               EvidenceRecorder evidence) {
        this.manager = manager;
        this.config = config;
        this.time = new KafkaTime(manager.ticker());
        this.metrics = new Metrics(time);
        HandshakeTracker handshakes = new HandshakeTracker();
        this.driver = new MetadataDriver(manager, config, resolver, evidence);
        driver.trackHandshakes(handshakes);
        this.client = Transport.networkClient(config, driver.nodeProvider(), resolver, handshakes, metrics, time);
        driver.attach(client);
    }

    /** Wakes the loop (thread-safe). */
    public void wakeup() {
        client.wakeup();
    }

    /** The driver this loop runs. */
    MetadataDriver driver() {
        return driver;
    }

    /** How many times the loop went back to the bootstrap addresses. */
    public long rebootstraps() {
        return driver.rebootstraps();
    }

    @Override
    public void run() {
        try {
            while (!manager.isClosed()) {
                long waitMs = driver.step(time.milliseconds());
                try {
                    client.poll(waitMs, time.milliseconds());
                } catch (RuntimeException e) {
                    if (!manager.isClosed()) {
                        pollFailed(e);
                    }
                }
            }
            manager.poll(manager.ticker().milliTime()); // moves the state machine to CLOSED
        } finally {
            closeTransport();
        }
    }

    /**
     * The client's poll threw: an ERROR with its trace, except the known throw after a KIP-1242 refusal (see
     * {@link MetadataDriver#pollThrewAfterRefusal}), which kmeta recovers from: WARN the first time, DEBUG after.
     */
    void pollFailed(RuntimeException e) {
        if (!driver.pollThrewAfterRefusal(e)) {
            log.error("[{}] network poll failed; going on", config.clientId(), e);
        } else if (pollsLostToRefusals++ == 0) {
            log.warn("[{}] network poll stopped: a broker's identity refusal (KIP-1242) closed connections inside it "
                    + "({}); a request it lost is asked again", config.clientId(), e.getMessage());
        } else {
            log.debug("[{}] network poll stopped after an identity refusal ({})", config.clientId(), e.getMessage());
        }
    }

    private void closeTransport() {
        try {
            client.close();
        } catch (RuntimeException e) {
            log.debug("[{}] error closing the network client", config.clientId(), e);
        }
        metrics.close();
    }
}
