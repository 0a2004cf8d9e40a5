package dev.kmeta.producer.internal.network;

import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.internals.ProducerBatch;
import org.apache.kafka.clients.producer.internals.RecordAccumulator;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Issue 27, the one place kmeta reaches into a KafkaProducer's record accumulator: failing the batches queued for a
 * partition that a re-created topic no longer has. kafka-clients cannot fail them before {@code delivery.timeout.ms}
 * - such a partition has no leader in any metadata, so its queue is never drained, and no error of a broker ever
 * reaches it - and nothing else the stand-in controls (its Cluster and MetadataSnapshot views, the interceptor)
 * reaches a record once {@code send()} appended it.
 *
 * <p>What it touches: the private field {@code KafkaProducer.accumulator} (read once, by {@link KafkaClientsAbi}, the
 * route's one place for reflection), the accumulator's public {@code getDeque(TopicPartition)} and
 * {@code deallocate(ProducerBatch)} and the batch's public {@code abortRecordAppends()} and {@code abort(RuntimeException)} - the steps of kafka-clients' own
 * {@code RecordAccumulator.abortBatches}, for one partition's queue, under that queue's lock. It does not tell the
 * producer's TransactionManager (package-private): for an idempotent producer the sequence numbers of a vanished
 * partition stay recorded, which matters only if partitions are added back up to that number; a transactional
 * producer is never given one (its transaction must fail as kafka-clients decides).
 *
 * <p>Thread-safety: {@link #fail} runs on the producer's network thread, as kafka-clients' own expiry does; the
 * records' callbacks run there.
 */
@SuppressKafkaInternalApiUsage("fails the batches of a re-created topic's vanished partitions through the "
        + "accumulator's getDeque/deallocate and the batches' abort, as kafka-clients' own abortBatches does")
public final class StaleQueues {
    private static final Logger log = LoggerFactory.getLogger(StaleQueues.class);

    private final RecordAccumulator accumulator;

    private StaleQueues(RecordAccumulator accumulator) {
        this.accumulator = accumulator;
    }

    /**
     * The stale queues of {@code producer}, or null: for a transactional producer, or when this kafka-clients has no
     * accumulator where 4.0-4.4 keep it (the records then fail at {@code delivery.timeout.ms}, with kmeta's
     * diagnosis).
     */
    public static StaleQueues of(KafkaClientsAbi abi, KafkaProducer<?, ?> producer, boolean transactional) {
        if (transactional) {
            return null;
        }
        Object a = abi.accumulatorOf(producer);
        if (!(a instanceof RecordAccumulator)) {
            log.debug("KafkaProducer's accumulator not found; records queued for a re-created topic's vanished "
                    + "partitions expire at delivery.timeout.ms");
            return null;
        }
        return new StaleQueues((RecordAccumulator) a);
    }

    /** True when records are queued for {@code tp} (issue 39: a leaderless partition is named while they are). */
    boolean queued(TopicPartition tp) {
        Deque<ProducerBatch> dq = accumulator.getDeque(tp);
        if (dq == null) {
            return false;
        }
        synchronized (dq) {
            return !dq.isEmpty();
        }
    }

    /** Fails every batch queued for {@code tp} with {@code reason}; returns how many batches. */
    int fail(TopicPartition tp, RuntimeException reason) {
        Deque<ProducerBatch> dq = accumulator.getDeque(tp);
        if (dq == null) {
            return 0;
        }
        List<ProducerBatch> failed;
        synchronized (dq) {
            if (dq.isEmpty()) {
                return 0;
            }
            failed = new ArrayList<>(dq);
            for (ProducerBatch b : failed) {
                b.abortRecordAppends();
            }
            dq.clear();
        }
        for (ProducerBatch b : failed) {
            try {
                b.abort(reason);
            } catch (IllegalStateException e) {
                log.debug("batch for {} already completed", tp, e); // completed by kafka-clients meanwhile
            }
            accumulator.deallocate(b);
        }
        return failed.size();
    }
}
