package dev.kmeta.micrometer;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.producer.RouteStats;
import dev.kmeta.sender.KafkaMetadata;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.Locale;
import java.util.Objects;

/**
 * A Micrometer {@link MeterBinder} for the KafkaProducer route of one kmeta instance (kmeta-kafka-producer on the
 * class path): each {@link RouteStats.Counter} as a function counter {@code kmeta.route.<name>} (e.g.
 * {@code kmeta.route.sends.held}, {@code kmeta.route.holds.released}), {@code kmeta.route.producers.open} as a gauge,
 * tagged {@code client.id} as {@link KmetaMetrics}'s meters are. {@code KmetaRouteMetrics.of(metadata).bindTo(registry)},
 * beside {@code KmetaMetrics.of(metadata)}.
 *
 * <p>The meters read {@link KmetaProducer#routeStats} when the registry reads them; nothing is done on the send path.
 * Once the instance's last producer closed they read 0. Immutable and thread-safe.
 */
public final class KmetaRouteMetrics implements MeterBinder {
    private static final String PREFIX = "kmeta.route.";

    private final KafkaMetadata metadata;
    private final Tags tags;

    private KmetaRouteMetrics(KafkaMetadata metadata, Tags tags) {
        this.metadata = metadata;
        this.tags = tags;
    }

    /** A binder for the route of {@code metadata}'s instance, tagged {@code client.id} with the instance's own. */
    public static KmetaRouteMetrics of(KafkaMetadata metadata) {
        Objects.requireNonNull(metadata, "metadata");
        return new KmetaRouteMetrics(metadata, Tags.of("client.id", metadata.config().clientId()));
    }

    /** The same binder with {@code extra} tags on every meter as well. */
    public KmetaRouteMetrics withTags(Iterable<Tag> extra) {
        return new KmetaRouteMetrics(metadata, tags.and(extra));
    }

    /** The meter name of {@code counter}: {@code kmeta.route.} and its attribute name in dotted lower case. */
    static String meterName(RouteStats.Counter counter) {
        return PREFIX + counter.attribute().replaceAll("([a-z])([A-Z])", "$1.$2").toLowerCase(Locale.ROOT);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RouteStats.Counter c : RouteStats.Counter.values()) {
            if (c == RouteStats.Counter.PRODUCERS_OPEN) {
                Gauge.builder(meterName(c), metadata, m -> KmetaProducer.routeStats(m).get(c)).tags(tags)
                        .baseUnit("producers").description(c.description()).register(registry);
            } else {
                FunctionCounter.builder(meterName(c), metadata, m -> KmetaProducer.routeStats(m).get(c)).tags(tags)
                        .description(c.description()).register(registry);
            }
        }
    }

    @Override
    public String toString() {
        return "KmetaRouteMetrics" + tags;
    }
}
