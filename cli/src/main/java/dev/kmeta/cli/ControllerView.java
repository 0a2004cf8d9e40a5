package dev.kmeta.cli;

import dev.kmeta.cluster.Cluster;
import java.util.List;
import java.util.Objects;

/**
 * The controller as {@code watch} and {@code doctor} show it, telling the active controller apart from the id brokers
 * report: on KRaft the metadata quorum's leader ({@link ControllerProbe}); on ZooKeeper-era brokers the id their
 * Metadata answers name, which is the controller there; when neither is known, nothing - the id a KRaft broker reports
 * is a random live broker, and printing its changes would report controller moves that never happened. Immutable.
 *
 * @param source where the id comes from
 * @param id     the controller's node id, or -1
 * @param problem why it is unknown ({@link Source#UNKNOWN}), else null
 */
record ControllerView(Source source, int id, String problem) {
    /** Where the id comes from. */
    enum Source {
        /** KRaft: the metadata quorum's leader, the active controller. */
        QUORUM_LEADER,
        /** ZooKeeper-era brokers: the controller id of their Metadata answers. */
        REPORTED,
        /** Not known; the id in Metadata answers is not shown (on KRaft it is a random live broker). */
        UNKNOWN
    }

    ControllerView {
        Objects.requireNonNull(source, "source");
    }

    /**
     * What to show now, from the probe's latest answer, what was shown before (null if nothing) and the snapshot. An
     * answer that failed after a good one keeps the good one (a controller failover shows as a new leader, not as a
     * failed question).
     */
    static ControllerView of(ControllerProbe.Answer latest, ControllerView shown, Cluster snapshot) {
        switch (latest.mode()) {
            case KRAFT:
                return new ControllerView(Source.QUORUM_LEADER, latest.leaderId(), null);
            case ZOOKEEPER:
                return new ControllerView(Source.REPORTED, snapshot.controllerId(), null);
            default:
                if (shown == null || shown.source == Source.UNKNOWN) {
                    return new ControllerView(Source.UNKNOWN, -1, latest.problem());
                }
                return shown.source == Source.REPORTED
                        ? new ControllerView(Source.REPORTED, snapshot.controllerId(), null) : shown;
        }
    }

    /** One line: the controller and where its id comes from. */
    String describe() {
        switch (source) {
            case QUORUM_LEADER:
                return "controller " + id + " (the KRaft metadata quorum's leader)";
            case REPORTED:
                return "controller " + idOrNone(id) + " (as the brokers report it: they do not answer DescribeQuorum, "
                        + "so ZooKeeper mode)";
            default:
                return "controller unknown: " + problem + " (on KRaft the id in metadata answers is a random live "
                        + "broker, not the controller: not shown)";
        }
    }

    /** The lines that tell a reader who saw {@code shown} (null: nothing yet) what changed. */
    List<String> changesSince(ControllerView shown) {
        if (shown == null || shown.source != source) {
            return List.of(describe());
        }
        if (source == Source.UNKNOWN || shown.id == id) {
            return List.of();
        }
        return List.of("controller " + idOrNone(shown.id) + " -> " + idOrNone(id)
                + (source == Source.QUORUM_LEADER ? " (KRaft metadata quorum leader)" : ""));
    }

    private static String idOrNone(int id) {
        return id < 0 ? "none" : Integer.toString(id);
    }
}
