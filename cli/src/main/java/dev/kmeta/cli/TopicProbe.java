package dev.kmeta.cli;

import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.KafkaException;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;

/**
 * Asks kmeta for one topic and says what came of it: found, not found, refused, or no answer within the budget
 * (with kmeta's {@link Diagnosis}). Stateless and thread-safe.
 *
 * <p>A missing topic is not waited out for the whole budget: kmeta keeps asking (with backoff) while the brokers
 * answer UNKNOWN_TOPIC_OR_PARTITION, so the budget is drawn in slices, and once a slice ends with kmeta's diagnosis
 * TOPIC_NOT_FOUND (the brokers said so several times in a row within a second) the topic is reported missing.
 */
final class TopicProbe {
    /** How long one slice of the budget is. */
    static final long SLICE_MS = 1_000;

    /** What came of the question. */
    enum Outcome { FOUND, NOT_FOUND, NOT_AUTHORIZED, INVALID, NO_ANSWER }

    /**
     * The answer.
     *
     * @param outcome   what came of it
     * @param cluster   the snapshot that knows the topic (FOUND), else the last snapshot
     * @param message   one line on what went wrong, or null when found
     * @param diagnosis kmeta's diagnosis when there is one, else null
     */
    record Result(Outcome outcome, Cluster cluster, String message, Diagnosis diagnosis) {
    }

    private TopicProbe() {
    }

    /** Waits up to {@code timeoutMs} for {@code topic}'s metadata. */
    static Result probe(KafkaMetadata metadata, String topic, long timeoutMs) {
        Deadline overall = Deadline.after(timeoutMs);
        while (true) {
            long sliceMs = Math.max(1, Math.min(SLICE_MS, overall.remainingMs()));
            try {
                return new Result(Outcome.FOUND, metadata.awaitTopic(topic, Deadline.after(sliceMs)), null, null);
            } catch (KafkaMetadataTimeoutException e) {
                Diagnosis d = e.diagnosis();
                if (d != null && d.cause() == Diagnosis.Cause.TOPIC_NOT_FOUND) {
                    return new Result(Outcome.NOT_FOUND, metadata.fetch(), "topic " + topic + " does not exist: "
                            + d.seen(), d);
                }
                if (overall.isExpired()) {
                    return new Result(Outcome.NO_ANSWER, metadata.fetch(), d == null ? e.getMessage()
                            : "no metadata for topic " + topic + " within " + timeoutMs + " ms: " + d.cause() + ": "
                            + d.seen() + ". Fix: " + d.fix(), d);
                }
            } catch (TopicAuthorizationException | InvalidTopicException e) {
                Outcome outcome = e instanceof TopicAuthorizationException ? Outcome.NOT_AUTHORIZED : Outcome.INVALID;
                return new Result(outcome, metadata.fetch(), e.getMessage(), Diagnosis.from(e).orElse(null));
            } catch (KafkaException e) { // authentication, TLS, closed
                Diagnosis d = Diagnosis.from(e).orElse(null);
                return new Result(Outcome.NO_ANSWER, metadata.fetch(), d != null ? d.message()
                        : Connection.oneLine(e), d);
            }
        }
    }
}
