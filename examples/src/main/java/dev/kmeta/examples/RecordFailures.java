package dev.kmeta.examples;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * The exceptions records fail with after {@code send()} returned, each carrying kmeta's diagnosis of the record's
 * partition when there is one ({@code Diagnosis.from(e)} finds it in the cause chain), so that no record ends with a
 * bare "Expiring".
 *
 * <p>Stateless; thread-safe.
 */
final class RecordFailures {
    private RecordFailures() {
    }

    /**
     * Records that waited past their send's {@code max.block.ms} for a leader whose advertised address never accepted
     * a connection: a Kafka {@code TimeoutException}, as the same send would have failed in a metadata wait.
     */
    static KafkaMetadataTimeoutException unreachableLeader(PartitionQueue q, int records, long maxBlockMs,
                                                           Diagnosis d) {
        return new KafkaMetadataTimeoutException("Partition " + q.partition + " of topic " + q.topic + ": "
                + records + " record(s) not sent within max.block.ms=" + maxBlockMs + ": " + said(d), d);
    }

    /**
     * Records not acknowledged within {@code delivery.timeout.ms}: with the partition's diagnosis (kmeta's
     * {@code diagnoseUndelivered}: LEADER_NOT_RESPONDING when it sees nothing wrong with the leader) and the last
     * attempt's failure, if any; without a diagnosis only when kmeta was closed meanwhile.
     */
    static TimeoutException expired(PartitionQueue q, int records, long deliveryTimeoutMs, Diagnosis d) {
        String message = "Expiring " + records + " record(s) for " + q.topic + "-" + q.partition
                + ": not acknowledged within delivery.timeout.ms=" + deliveryTimeoutMs;
        String lastAttempt = q.lastFailure == null ? "" : " (last attempt: " + q.lastFailure + ")";
        if (d != null) {
            return new KafkaMetadataTimeoutException(message + ": " + said(d) + lastAttempt, d);
        }
        return new TimeoutException(message + lastAttempt);
    }

    /** Records the producer failed because it closed before they were acknowledged. */
    static KafkaException closed(String why, PartitionQueue q, Diagnosis d) {
        String message = why + (q == null ? "" : " (partition " + q.topic + "-" + q.partition
                + (d == null ? "" : ": " + said(d)) + ")");
        return d == null ? new KafkaException(message) : new KafkaException(message,
                MetadataTimeoutException.of(d));
    }

    private static String said(Diagnosis d) {
        return d.cause() + ": " + d.seen() + ". Fix: " + d.fix();
    }
}
