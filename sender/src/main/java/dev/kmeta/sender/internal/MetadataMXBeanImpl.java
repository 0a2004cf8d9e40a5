package dev.kmeta.sender.internal;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.internal.Counters;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.sender.KafkaMetadataMXBean;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The MBean of one instance: reads the manager's counters, ages and snapshot, and the sender's rebootstrap count and
 * its driver's KIP-1242 and KIP-909 counts.
 *
 * <p>Thread-safe: only volatile and atomic reads of what the sender thread writes.
 */
final class MetadataMXBeanImpl implements KafkaMetadataMXBean {
    private static final double MS_PER_SECOND = 1_000.0;

    private final String clientId;
    private final MetadataManager manager;
    private final Counters counters;
    private final LongSupplier rebootstraps;
    private final MetadataDriver driver;
    private final boolean shared;
    private final Supplier<List<String>> users;

    MetadataMXBeanImpl(String clientId, MetadataManager manager, LongSupplier rebootstraps, MetadataDriver driver,
                       boolean shared, Supplier<List<String>> users) {
        this.clientId = clientId;
        this.shared = shared;
        this.users = users;
        this.manager = manager;
        this.counters = manager.counters();
        this.rebootstraps = rebootstraps;
        this.driver = driver;
    }

    @Override
    public String getClientId() {
        return clientId;
    }

    @Override
    public String getSharing() {
        return shared ? "shared" : "private";
    }

    @Override
    public List<String> getUsers() {
        return users.get();
    }

    @Override
    public double getMetadataAgeSeconds() {
        return manager.metadataAgeMs() / MS_PER_SECOND;
    }

    @Override
    public Map<String, Double> getTopicAgesSeconds() {
        Map<String, Double> ages = new LinkedHashMap<>();
        manager.topicAgesMs().forEach((topic, ms) -> ages.put(topic, ms / MS_PER_SECOND));
        return ages;
    }

    @Override
    public double topicAgeSeconds(String topic) {
        long ms = topic == null ? -1 : manager.topicAgeMs(topic);
        return ms < 0 ? -1 : ms / MS_PER_SECOND;
    }

    @Override
    public int getVersion() {
        return manager.fetch().version();
    }

    @Override
    public String getState() {
        return manager.state().name();
    }

    @Override
    public long getRequestsSent() {
        return counters.requestsSent();
    }

    @Override
    public long getRequestsFailed() {
        return counters.requestsFailed();
    }

    @Override
    public long getRequestsCoalesced() {
        return counters.requestsCoalesced();
    }

    @Override
    public long getResponsesApplied() {
        return counters.responsesApplied();
    }

    @Override
    public long getRequestLatencyTotalMs() {
        return counters.requestLatencyMsTotal();
    }

    @Override
    public double getRequestLatencyAvgMs() {
        long applied = counters.responsesApplied();
        return applied == 0 ? 0 : (double) counters.requestLatencyMsTotal() / applied;
    }

    @Override
    public long getRequestLatencyMaxMs() {
        return counters.requestLatencyMsMax();
    }

    @Override
    public long getWaitersNow() {
        return counters.waitersNow();
    }

    @Override
    public long getWaitTimeTotalMs() {
        return counters.waitTimeNsTotal() / 1_000_000L;
    }

    @Override
    public long getWaitTimeouts() {
        return counters.waitTimeouts();
    }

    @Override
    public Map<String, Long> getWaitTimeoutsByCause() {
        Map<String, Long> byCause = new LinkedHashMap<>();
        for (Map.Entry<Diagnosis.Cause, Long> e : counters.waitTimeoutsByCause().entrySet()) {
            byCause.put(e.getKey().name(), e.getValue());
        }
        return byCause;
    }

    @Override
    public long getStaleEpochsRejected() {
        return counters.staleEpochsRejected();
    }

    @Override
    public long getLeaderHintsApplied() {
        return counters.leaderHintsApplied();
    }

    @Override
    public long getRebootstraps() {
        return rebootstraps.getAsLong();
    }

    @Override
    public long getMisroutedConnections() {
        return driver.misroutedConnections();
    }

    @Override
    public long getBootstrapResolveTimeouts() {
        return driver.bootstrapResolveTimeouts();
    }

    @Override
    public int getSubscribedTopics() {
        return manager.subscribedTopics().size();
    }

    @Override
    public long getStaleRefreshes() {
        return counters.staleRefreshes();
    }

    @Override
    public double getOldestTopicAgeSeconds() {
        long ms = manager.oldestTopicAgeMs();
        return ms < 0 ? -1 : ms / MS_PER_SECOND;
    }
}
