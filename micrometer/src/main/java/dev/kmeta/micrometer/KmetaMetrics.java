package dev.kmeta.micrometer;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.MetadataStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * A Micrometer {@link MeterBinder} for one kmeta instance: its {@link MetadataStats} as function counters, gauges and
 * timers named {@code kmeta.metadata.*} (docs/metrics.md lists each, with its type, unit and tags), every one tagged
 * {@code client.id}, timeouts also {@code cause}. {@code KmetaMetrics.of(metadata).bindTo(registry)}.
 *
 * <p>The meters read the instance when the registry reads them (a scrape, a publish step): each read takes a
 * {@link KafkaMetadata#stats()} snapshot, a few dozen atomic reads. Nothing is done on the send path, and nothing is
 * added to it. A closed instance keeps its last counts: binding one, or closing one after binding, throws nothing
 * (ages go on growing: no answer comes any more). The meters hold the instance weakly, as Micrometer's do by default:
 * once the application drops it they report NaN.
 *
 * <p>Immutable and thread-safe; {@link #bindTo} may be called for several registries.
 */
public final class KmetaMetrics implements MeterBinder {
    private static final String PREFIX = "kmeta.metadata.";

    private final KafkaMetadata metadata;
    private final Tags tags;
    private final List<String> topicAges;

    private KmetaMetrics(KafkaMetadata metadata, Tags tags, List<String> topicAges) {
        this.metadata = metadata;
        this.tags = tags;
        this.topicAges = topicAges;
    }

    /** A binder for {@code metadata}, tagged {@code client.id} with the instance's own. */
    public static KmetaMetrics of(KafkaMetadata metadata) {
        Objects.requireNonNull(metadata, "metadata");
        return new KmetaMetrics(metadata, Tags.of("client.id", metadata.config().clientId()), List.of());
    }

    /** The same binder with {@code extra} tags on every meter as well. */
    public KmetaMetrics withTags(Iterable<Tag> extra) {
        return new KmetaMetrics(metadata, tags.and(extra), topicAges);
    }

    /**
     * The same binder with a {@code kmeta.metadata.topic.age} gauge (tag {@code topic}) for each of {@code topics}:
     * seconds since an answer last described it, NaN while it is not subscribed or never described. Off by default:
     * a gauge per topic is a time series per topic.
     */
    public KmetaMetrics withTopicAges(List<String> topics) {
        return new KmetaMetrics(metadata, tags, List.copyOf(topics));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "requests", "requests", "metadata requests sent", MetadataStats::requestsSent);
        counter(registry, "requests.failed", "requests", "requests that failed: disconnected, timed out, unusable",
                MetadataStats::requestsFailed);
        counter(registry, "requests.coalesced", "requests", "update requests folded into one already pending",
                MetadataStats::requestsCoalesced);
        counter(registry, "responses.rejected", "responses", "answers not believed (e.g. no brokers listed)",
                MetadataStats::responsesRejected);
        timer(registry, "request.latency", "applied answers: request sent to answer applied",
                MetadataStats::responsesApplied, MetadataStats::requestLatencyTotalMs, TimeUnit.MILLISECONDS);
        timeGauge(registry, "request.latency.max", Tags.empty(), "largest latency of an applied answer since start",
                m -> m.stats().requestLatencyMaxMs());
        timer(registry, "waits", "application threads' waits for metadata past a cache miss",
                MetadataStats::waits, MetadataStats::waitTimeTotalNs, TimeUnit.NANOSECONDS);
        gauge(registry, "waiters", "threads", "application threads waiting for metadata now",
                m -> m.stats().waitersNow());
        for (Diagnosis.Cause cause : Diagnosis.Cause.values()) {
            counter(registry, "timeouts", Tags.of("cause", cause.name()), "timeouts",
                    "waits that timed out, by diagnosed cause", s -> s.waitTimeouts(cause));
        }
        counter(registry, "epochs.stale", "partitions", "partitions whose older leader epoch was not applied (KIP-320)",
                MetadataStats::staleEpochsRejected);
        counter(registry, "leader.hints", Tags.of("result", "applied"), "hints", "KIP-951 leader hints applied",
                MetadataStats::leaderHintsApplied);
        counter(registry, "leader.hints", Tags.of("result", "ignored"), "hints",
                "KIP-951 leader hints not applied: stale or unusable", MetadataStats::leaderHintsIgnored);
        counter(registry, "rebootstraps", "rebootstraps", "times the sender went back to bootstrap.servers",
                MetadataStats::rebootstraps);
        counter(registry, "cluster.id.changes", "changes", "times the cluster id changed between answers",
                MetadataStats::clusterIdChanges);
        counter(registry, "misrouted.connections", "connections",
                "brokers that refused the cluster id and node id sent (KIP-1242)", MetadataStats::misroutedConnections);
        counter(registry, "bootstrap.resolve.timeouts", "timeouts",
                "bootstrap.resolve.timeout.ms passed with no bootstrap name resolving (KIP-909)",
                MetadataStats::bootstrapResolveTimeouts);
        counter(registry, "stale.refreshes", "refreshes", "refreshes asked by kmeta.metadata.max.staleness.ms",
                MetadataStats::staleRefreshes);
        counter(registry, "topics.expired", "topics", "topics dropped for being idle past metadata.max.idle.ms",
                MetadataStats::topicsExpired);
        counter(registry, "topics.rejected", "topics", "new topics refused by kmeta.metadata.max.topics",
                MetadataStats::topicsRejectedByCap);
        timeGauge(registry, "age", Tags.empty(), "since the last applied answer to a full metadata request",
                KafkaMetadata::metadataAgeMs);
        timeGauge(registry, "oldest.topic.age", Tags.empty(),
                "since an answer last described the oldest subscribed topic", m -> orNaN(m.stats().oldestTopicAgeMs()));
        gauge(registry, "version", null, "the snapshot's version", m -> m.fetch().version());
        for (String topic : topicAges) {
            timeGauge(registry, "topic.age", Tags.of("topic", topic), "since an answer last described the topic",
                    m -> orNaN(m.topicAgeMs(topic)));
        }
    }

    private void counter(MeterRegistry r, String name, String unit, String help, ToDoubleFunction<MetadataStats> f) {
        counter(r, name, Tags.empty(), unit, help, f);
    }

    private void counter(MeterRegistry r, String name, Tags extra, String unit, String help,
                         ToDoubleFunction<MetadataStats> f) {
        FunctionCounter.builder(PREFIX + name, metadata, m -> f.applyAsDouble(m.stats()))
                .tags(tags.and(extra)).baseUnit(unit).description(help).register(r);
    }

    private void timer(MeterRegistry r, String name, String help, ToLongFunction<MetadataStats> count,
                       ToDoubleFunction<MetadataStats> total, TimeUnit unit) {
        FunctionTimer.builder(PREFIX + name, metadata, m -> count.applyAsLong(m.stats()),
                m -> total.applyAsDouble(m.stats()), unit).tags(tags).description(help).register(r);
    }

    private void gauge(MeterRegistry r, String name, String unit, String help, ToDoubleFunction<KafkaMetadata> f) {
        Gauge.builder(PREFIX + name, metadata, f).tags(tags).baseUnit(unit).description(help).register(r);
    }

    /** A time in ms, shown in the registry's base time unit (seconds for most). */
    private void timeGauge(MeterRegistry r, String name, Tags extra, String help, ToDoubleFunction<KafkaMetadata> ms) {
        TimeGauge.builder(PREFIX + name, metadata, TimeUnit.MILLISECONDS, ms).tags(tags.and(extra)).description(help)
                .register(r);
    }

    private static double orNaN(long ms) {
        return ms < 0 ? Double.NaN : ms;
    }

    @Override
    public String toString() {
        return "KmetaMetrics(" + tags + ", topic ages " + topicAges + ")";
    }
}
