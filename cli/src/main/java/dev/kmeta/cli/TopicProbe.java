package dev.kmeta.cli;

import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.KafkaException;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import java.time.Duration;

/**
 * Asks kmeta for one topic and says what came of it: found, not found, refused, or no answer (with kmeta's
 * {@link Diagnosis}). Stateless and thread-safe.
 *
 * <p>The budget is drawn in slices, and the probe ends before it is spent once the outcome is certain:
 * <ul>
 *   <li>a missing topic: once a whole slice after the first answer ends with kmeta's diagnosis TOPIC_NOT_FOUND (the
 *       brokers said so, again and again, for about a second);</li>
 *   <li>a hopeless bootstrap: once kmeta's diagnosis is BOOTSTRAP_UNREACHABLE or BOOTSTRAP_DNS and every bootstrap
 *       address failed {@value #CERTAIN_AFTER_FAILURES} times in a row, none ever answering (connection refused, or
 *       the name does not resolve: what doctor's TCP and DNS checks see at once);</li>
 *   <li>a refused identity (authentication, TLS) or a refused topic: at once, kmeta fails the wait itself.</li>
 * </ul>
 * Until something answers, slices are short, so that a hopeless bootstrap is noticed within moments.
 */
final class TopicProbe {
    /** How long one slice of the budget is once a broker answered. */
    static final long SLICE_MS = 1_000;
    /** How long one slice is while no broker has answered yet. */
    static final long EARLY_SLICE_MS = 100;
    /** Failures in a row of every bootstrap address, none ever answering, that make the diagnosis certain. */
    static final int CERTAIN_AFTER_FAILURES = 3;

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

    /** Waits up to {@code timeoutMs} for {@code topic}'s metadata (less when the outcome is certain before). */
    static Result probe(KafkaMetadata metadata, String topic, long timeoutMs) {
        Deadline overall = metadata.newDeadline(Duration.ofMillis(timeoutMs));
        long startNs = System.nanoTime();
        while (true) {
            boolean answeredBefore = anyAnswer(metadata.evidence());
            long sliceMs = Math.max(1, Math.min(answeredBefore ? SLICE_MS : EARLY_SLICE_MS, overall.remainingMs()));
            try {
                return new Result(Outcome.FOUND, metadata.awaitTopic(topic, metadata.newDeadline(Duration.ofMillis(sliceMs))), null, null);
            } catch (KafkaMetadataTimeoutException e) {
                Diagnosis d = e.diagnosis();
                if (d != null && d.cause() == Diagnosis.Cause.TOPIC_NOT_FOUND && answeredBefore) {
                    return new Result(Outcome.NOT_FOUND, metadata.fetch(), "topic " + topic + " does not exist: "
                            + d.seen(), d);
                }
                if (d != null && bootstrapHopeless(d, metadata)) {
                    long tookMs = (System.nanoTime() - startNs) / 1_000_000;
                    return new Result(Outcome.NO_ANSWER, metadata.fetch(), "no metadata for topic " + topic
                            + " (gave up after " + tookMs + " ms of " + Durations.format(timeoutMs) + ": every "
                            + "bootstrap address keeps failing, none ever answered): " + d.cause() + ": " + d.seen()
                            + ". Fix: " + d.fix(), d); // d.seen() counts the attempts: one count in the line
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

    private static boolean anyAnswer(ConnectionEvidence evidence) {
        return evidence.records().stream().anyMatch(ConnectionEvidence.Record::everAnswered);
    }

    /**
     * True when kmeta says the bootstrap is unreachable (or does not resolve) and every bootstrap address has failed
     * {@link #CERTAIN_AFTER_FAILURES} times, is failing now and never answered: more waiting will not change it.
     */
    static boolean bootstrapHopeless(Diagnosis d, KafkaMetadata metadata) {
        if (d.cause() != Diagnosis.Cause.BOOTSTRAP_UNREACHABLE && d.cause() != Diagnosis.Cause.BOOTSTRAP_DNS) {
            return false;
        }
        int failed = 0;
        for (ConnectionEvidence.Record r : metadata.evidence().records()) {
            if (!r.isBootstrap()) {
                return false;
            }
            ConnectionEvidence.Problem p = r.lastProblem();
            if (r.everAnswered() || !r.failingNow() || r.failures() < CERTAIN_AFTER_FAILURES
                    || (p != ConnectionEvidence.Problem.CONNECT_FAILED && p != ConnectionEvidence.Problem.DNS)) {
                return false;
            }
            failed++;
        }
        return failed > 0 && failed >= metadata.config().bootstrapServers().size();
    }
}
