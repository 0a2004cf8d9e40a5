package dev.kmeta.spring;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.sender.KafkaMetadata;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The health contributor {@code kmeta}: one entry per kmeta instance under the context's {@link KmetaProducerFactory}
 * beans (and their copies), named by the instance's client id, with its refresh state, metadata age, cluster id,
 * broker count, timeouts by cause and, when the cluster cannot be reached, the diagnosis (cause, what was seen, the
 * fix). DOWN when any instance has a cluster-level diagnosis: the bootstrap unreachable or not resolving, TLS or SASL
 * failing, the advertised listeners unreachable, every broker unreachable; else UNKNOWN while an instance has no answer
 * yet (and before any producer was made: Spring makes them at the first send); UP once every instance has brokers.
 *
 * <p>The diagnosis is kmeta's {@link KafkaMetadata#bootstrapResolutionFailure()}, else its
 * {@link KafkaMetadata#diagnose(String, int)} for a topic name Kafka cannot have: only the rules about connections
 * can answer for it. Reads the instances, changes nothing. Thread-safe.
 */
final class KmetaHealthIndicator implements HealthIndicator {
    /** Not a legal Kafka topic name (a space): no answer ever describes it. */
    private static final String NO_TOPIC = "kmeta health";
    private static final Set<Diagnosis.Cause> DOWN = EnumSet.of(Diagnosis.Cause.BOOTSTRAP_UNREACHABLE,
            Diagnosis.Cause.BOOTSTRAP_DNS, Diagnosis.Cause.AUTHENTICATION_FAILED, Diagnosis.Cause.TLS_HANDSHAKE_FAILED,
            Diagnosis.Cause.ADVERTISED_LISTENER_UNREACHABLE, Diagnosis.Cause.BROKERS_UNREACHABLE,
            Diagnosis.Cause.MISROUTED_CONNECTION);

    private final Supplier<Stream<KmetaInstances>> instances;

    KmetaHealthIndicator(Supplier<Stream<KmetaInstances>> instances) {
        this.instances = instances;
    }

    @Override
    public Health health() {
        List<KafkaMetadata> all = new ArrayList<>();
        instances.get().forEach(t -> t.open().forEach(h -> {
            if (!KmetaInstances.contains(all, h)) {
                all.add(h);
            }
        }));
        if (all.isEmpty()) {
            return Health.unknown().withDetail("instances", 0).build();
        }
        boolean down = false;
        boolean answered = true;
        Map<String, Object> details = new LinkedHashMap<>();
        for (KafkaMetadata m : all) {
            Map<String, Object> d = new LinkedHashMap<>();
            RefreshState state = m.state();
            d.put("state", state.name());
            d.put("metadataAgeMs", m.metadataAgeMs());
            dev.kmeta.cluster.Cluster snapshot = m.fetch();
            d.put("clusterId", snapshot.clusterId());
            d.put("brokers", snapshot.nodes().size());
            answered &= !snapshot.nodes().isEmpty();
            Map<String, Long> timeouts = new LinkedHashMap<>();
            m.stats().waitTimeoutsByCause().forEach((cause, n) -> {
                if (n > 0) {
                    timeouts.put(cause.name(), n);
                }
            });
            d.put("timeouts", timeouts);
            Map<String, Long> leaderless = m.leaderlessPartitions(); // issue 39: partition -> ms without a leader
            if (!leaderless.isEmpty()) {
                d.put("leaderlessPartitionsMs", leaderless);
            }
            Diagnosis diagnosis = diagnosis(m);
            if (diagnosis != null) {
                down = true;
                d.put("cause", diagnosis.cause().name());
                d.put("seen", diagnosis.seen());
                d.put("fix", diagnosis.fix());
            }
            details.put(name(details, m.config().clientId()), d);
        }
        Status status = down ? Status.DOWN : answered ? Status.UP : Status.UNKNOWN;
        return Health.status(status).withDetails(details).build();
    }

    /** A cluster-level diagnosis of the instance, or null when it reaches its cluster. */
    static Diagnosis diagnosis(KafkaMetadata m) {
        if (m.state() == RefreshState.CLOSED) {
            return null;
        }
        Diagnosis d = m.bootstrapResolutionFailure();
        if (d == null) {
            d = m.diagnose(NO_TOPIC, 0);
        }
        return d != null && DOWN.contains(d.cause()) ? d : null;
    }

    private static String name(Map<String, Object> taken, String clientId) {
        String name = clientId;
        for (int i = 2; taken.containsKey(name); i++) {
            name = clientId + "#" + i;
        }
        return name;
    }
}
