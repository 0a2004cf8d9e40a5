package dev.kmeta.bench;

import static dev.kmeta.bench.Stats.max;
import static dev.kmeta.bench.Stats.median;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.metadata.internal.RefreshRequest;
import dev.kmeta.sender.internal.ResponseTranslator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.Metadata.MetadataRequestAndVersion;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.utils.Time;
import java.time.Duration;

/**
 * P6, side by side (a plain {@code main}): {@code --waiters} threads (default 1,000) each wait for their own missing
 * topic; then one answer brings one of those topics. How many waiter threads does that answer wake, and how long until
 * the one thread that needed it returns?
 *
 * <p>Both sides get the same sequence, driven by this program as their sender would (no network):
 * <ul>
 *   <li>{@code kafka-clients}: a {@code ProducerMetadata}; each waiter does what {@code KafkaProducer.waitOnMetadata}
 *       does: {@code add(topic, now)}, {@code requestUpdateForTopic(topic)}, {@code awaitUpdate(version, timer)},
 *       {@code fetch()}, {@code maybeThrowExceptionForTopic(topic)}, {@code partitionCountForTopic(topic)}, in a loop
 *       until the topic has partitions. The driver waits for {@code timeToNextUpdate(now) == 0} (the backoff), takes
 *       {@code newMetadataRequestAndVersion(now)} and answers it with {@code update(requestVersion, response,
 *       isPartialUpdate, now)}.</li>
 *   <li>{@code kmeta}: a {@code MetadataManager}; each waiter calls {@code awaitTopic(topic, ANY_PARTITION,
 *       deadline)}. The driver calls {@code poll(now)} and {@code beginRefresh(now)} until a request is due (the
 *       backoff), then {@code onResponse(request, ResponseTranslator.translate(response), now)}.</li>
 * </ul>
 * Every answer is what a broker sends for the topics the request asked for: the arriving topic with its partitions
 * (100, 6 brokers, see {@link Wire}), every other asked topic with {@code UNKNOWN_TOPIC_OR_PARTITION}. A first answer
 * says every topic is unknown (so neither side is in its "first answer" state); then each of {@code --rounds} answers
 * brings one more topic (a different one each round; its waiter returns, so round r has {@code waiters - r + 1}
 * waiters).
 *
 * <p>Measured per round: <b>woken</b> = the waiter that returned plus every other waiter thread whose JVM wait count
 * ({@code ThreadInfo.getWaitedCount()}, which counts {@code Object.wait} and {@code LockSupport.park} alike) moved,
 * i.e. that went back to waiting after the answer; <b>needed waiter returns</b> = from just before the answer is
 * applied until that waiter's call returned (its own {@code System.nanoTime()}); <b>apply</b> = the answer's apply
 * call alone (both wake their waiters at its end); <b>returns after the apply call ended</b> = the difference (negative
 * when the waiter returned before the driver's call did); <b>waiter CPU</b> = the CPU time all waiter threads used
 * from the answer until every waiter was parked again (polled every 2 ms: the herd's cost).
 *
 * <pre>{@code
 * java -Xms2g -Xmx2g -XX:+AlwaysPreTouch -cp bench/target/benchmarks.jar dev.kmeta.bench.TargetedWakeup \
 *     --rounds 10 > bench/results/targeted-wakeup.txt
 * }</pre>
 * Options: {@code --waiters N} (1000), {@code --rounds N} (10), {@code --names hashed|numbered},
 * {@code --impl both|kmeta|kafka-clients}, {@code --warmup N} (300: rounds of the same scenario, on another instance
 * with a 1 ms backoff and not reported, run first so that both sides' answer handling is compiled code, not the
 * interpreter's: 30 were too few for C2 to compile either side's per-topic loops; {@code --warmup 0} measures the
 * first answers a JVM applies).
 *
 * <p>Not thread-safe; a program.
 */
public final class TargetedWakeup {
    private static final long WAIT_BUDGET_MS = 600_000;
    /** Both sides' defaults: {@code retry.backoff.ms} 100, {@code retry.backoff.max.ms} 1,000. */
    private static final long BACKOFF_MS = 100;
    /** The warm-up's backoff: its rounds follow each other at once. */
    private static final long WARMUP_BACKOFF_MS = 1;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private TargetedWakeup() {
    }

    /** One implementation as the waiters and the driver see it. */
    interface Side extends AutoCloseable {
        /** The waiter's call: returns once {@code topic} has partitions. */
        void await(String topic) throws Exception;

        /** The driver: waits until a request is due and takes it; the topics it asks for. */
        Collection<String> nextRequest() throws InterruptedException;

        /** The driver: applies the answer to the request taken last. */
        void answer(MetadataResponseData data);

        @Override
        void close();
    }

    /** What one round measured. */
    record Round(int waiters, int asked, int woken, long applyNs, long applyCpuNs, long neededNs, long quietNs,
                 long waiterCpuNs) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args, Map.of("waiters", "1000", "rounds", "10", "names", "hashed",
                "impl", "both", "warmup", "300"));
        int waiters = Args.intOpt(opts, "waiters");
        int rounds = Args.intOpt(opts, "rounds");
        int warmup = Args.intOpt(opts, "warmup");
        String impl = opts.get("impl");
        if (!impl.equals("both")) {
            Wire.checkImpl(impl);
        }
        String[] names = ApplyDelta.topicNames(opts.get("names"), waiters);
        System.out.printf(Locale.ROOT, "TargetedWakeup: %d waiters on %d topics, %d rounds, names %s, %s%n", waiters,
                waiters, rounds, opts.get("names"), Args.jvm());
        Map<String, List<Round>> results = new LinkedHashMap<>();
        for (String side : List.of(Wire.IMPL_KMETA, Wire.IMPL_KAFKA)) {
            if (impl.equals("both") || impl.equals(side)) {
                if (warmup > 0) {
                    run(side, names, warmup, WARMUP_BACKOFF_MS, false);
                }
                results.put(side, run(side, names, rounds, BACKOFF_MS, true));
            }
        }
        System.out.println();
        System.out.println("| impl | waiters | woken per answer (median / max) | needed waiter returns after"
                + " the answer arrived (median / max) | apply call (median; its CPU) | returns after the apply call ended"
                + " (median / max) | waiter CPU per answer (median) | all parked again after (median, ±2 ms) |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Map.Entry<String, List<Round>> e : results.entrySet()) {
            List<Round> r = e.getValue();
            System.out.printf(Locale.ROOT, "| %s | %d-%d | %d / %d | %.3f / %.3f ms | %.3f ms; %.3f ms | %.3f / %.3f ms"
                            + " | %.2f ms | %.1f ms |%n",
                    e.getKey(), r.get(r.size() - 1).waiters(), r.get(0).waiters(),
                    (long) median(r, x -> x.woken()), (long) max(r, x -> x.woken()),
                    median(r, x -> x.neededNs()) / 1e6, max(r, x -> x.neededNs()) / 1e6,
                    median(r, x -> x.applyNs()) / 1e6, median(r, x -> x.applyCpuNs()) / 1e6,
                    median(r, x -> x.neededNs() - x.applyNs()) / 1e6, max(r, x -> x.neededNs() - x.applyNs()) / 1e6,
                    median(r, x -> x.waiterCpuNs()) / 1e6, median(r, x -> x.quietNs()) / 1e6);
        }
        long[] wake = plainWakeLatencyNs(21);
        System.out.printf(Locale.ROOT, "this machine's own wake-up latency (a plain thread parked 20 ms, unpark -> it"
                + " runs; 21 tries): median %.3f ms, max %.3f ms%n", wake[wake.length / 2] / 1e6,
                wake[wake.length - 1] / 1e6);
        System.out.println("load at the end: " + Args.load());
    }

    /** A side with {@code retry.backoff.ms} {@code backoffMs} (max 10x that; kafka-clients: refresh backoff). */
    static Side side(String impl, long backoffMs) {
        return Wire.IMPL_KMETA.equals(impl) ? new KmetaSide(backoffMs) : new KafkaSide(backoffMs);
    }

    private static List<Round> run(String impl, String[] names, int rounds, long backoffMs, boolean print)
            throws Exception {
        int n = names.length;
        List<Round> out = new ArrayList<>();
        try (Side side = side(impl, backoffMs)) {
            long[] returnedNs = new long[n];
            AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(n);
            Thread[] threads = new Thread[n];
            for (int i = 0; i < n; i++) {
                int t = i;
                threads[i] = new Thread(() -> {
                    try {
                        side.await(names[t]);
                        returnedNs[t] = System.nanoTime();
                    } catch (Throwable e) {
                        failures.set(t, e);
                    }
                }, "waiter-" + i);
                threads[i].setDaemon(true);
                threads[i].start();
            }
            awaitParked(threads, -1, 30_000);
            // The first answer: every topic unknown. Waiters that were woken settle again.
            Collection<String> asked = side.nextRequest();
            side.answer(Wire.withUnknown(Wire.data(names, 0, 0, 0), asked));
            awaitParked(threads, -1, 30_000);
            checkWaitCountsMove(threads);
            for (int r = 0; r < rounds; r++) {
                int k = (int) ((long) (r + 1) * 7_919 % n);
                asked = side.nextRequest();
                if (!asked.contains(names[k])) {
                    throw new IllegalStateException(impl + ": the request does not ask for " + names[k] + ": "
                            + asked.size() + " topics");
                }
                List<String> others = new ArrayList<>(asked);
                others.remove(names[k]);
                MetadataResponseData data = Wire.withUnknown(Wire.data(names, k, k + 1, 0), others);
                int live = 0;
                for (Thread t : threads) {
                    live += t.isAlive() ? 1 : 0;
                }
                long[] waitedBefore = waitedCounts(threads);
                long[] cpuBefore = cpu(threads);
                long cpu0 = THREADS.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                side.answer(data);
                long applied = System.nanoTime();
                long applyCpuNs = THREADS.getCurrentThreadCpuTime() - cpu0;
                threads[k].join(10_000);
                if (threads[k].isAlive() || failures.get(k) != null) {
                    throw new IllegalStateException(impl + ": the waiter of " + names[k] + " did not return",
                            failures.get(k));
                }
                long quiet = awaitParked(threads, k, 10_000) - t0;
                long[] cpuAfter = cpu(threads);
                long[] waitedAfter = waitedCounts(threads);
                int woken = 1;
                for (int i = 0; i < n; i++) {
                    if (i != k && waitedAfter[i] != waitedBefore[i]) {
                        woken++;
                    }
                }
                long waiterCpuNs = 0;
                for (int i = 0; i < n; i++) {
                    if (cpuBefore[i] >= 0 && cpuAfter[i] >= 0) {
                        waiterCpuNs += cpuAfter[i] - cpuBefore[i];
                    }
                }
                Round round = new Round(live, asked.size(), woken, applied - t0, applyCpuNs, returnedNs[k] - t0,
                        quiet, waiterCpuNs);
                out.add(round);
                if (print) {
                    System.out.printf(Locale.ROOT, "%-13s round %2d: %4d waiters, request asked %4d topics,"
                                    + " woken %4d, needed waiter returned after %8.3f ms (apply %7.3f ms, CPU %7.3f ms),"
                                    + " all parked after %6.1f ms, waiter CPU %7.2f ms, load %s%n", impl, r + 1,
                            round.waiters(), round.asked(), round.woken(), round.neededNs() / 1e6,
                            round.applyNs() / 1e6, round.applyCpuNs() / 1e6, round.quietNs() / 1e6, round.waiterCpuNs() / 1e6, Args.load());
                }
            }
            for (int i = 0; i < n; i++) {
                Throwable f = failures.get(i);
                if (f != null) {
                    throw new IllegalStateException(impl + ": waiter " + i + " failed", f);
                }
            }
        }
        return out;
    }

    /**
     * The floor under "needed waiter returns after": how long a plain parked thread takes to run once unparked
     * (sorted, one per try). On these VMs an idle vCPU takes a while to be woken; both clients pay it.
     */
    static long[] plainWakeLatencyNs(int tries) throws InterruptedException {
        long[] ns = new long[tries];
        for (int i = 0; i < tries; i++) {
            long[] ranAt = new long[1];
            Thread t = new Thread(() -> {
                LockSupport.park();
                ranAt[0] = System.nanoTime();
            }, "wake-probe");
            t.start();
            while (t.getState() != Thread.State.WAITING) {
                Thread.onSpinWait();
            }
            Thread.sleep(20);
            long unparkedAt = System.nanoTime();
            LockSupport.unpark(t);
            t.join();
            ns[i] = ranAt[0] - unparkedAt;
        }
        Arrays.sort(ns);
        return ns;
    }

    /**
     * Waits until every live waiter but {@code except} is parked, seen so on 3 polls in a row 2 ms apart; returns the
     * time of the first of those polls ({@code System.nanoTime()}).
     */
    static long awaitParked(Thread[] threads, int except, long timeoutMs) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        int streak = 0;
        long firstQuiet = 0;
        while (System.nanoTime() < end) {
            boolean all = true;
            for (int i = 0; i < threads.length && all; i++) {
                Thread.State s = threads[i].getState();
                all = i == except || s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING
                        || s == Thread.State.TERMINATED;
            }
            if (all) {
                if (streak++ == 0) {
                    firstQuiet = System.nanoTime();
                }
                if (streak == 3) {
                    return firstQuiet;
                }
            } else {
                streak = 0;
            }
            Thread.sleep(2);
        }
        throw new IllegalStateException("waiters did not all park within " + timeoutMs + " ms");
    }

    /** Refuses to measure on a JVM whose wait counts do not count parks (every waiter has waited at least once). */
    private static void checkWaitCountsMove(Thread[] threads) {
        for (long c : waitedCounts(threads)) {
            if (c <= 0) {
                throw new IllegalStateException("ThreadInfo.getWaitedCount() does not count this JVM's waits");
            }
        }
    }

    static long[] waitedCounts(Thread[] threads) {
        long[] ids = new long[threads.length];
        for (int i = 0; i < threads.length; i++) {
            ids[i] = threads[i].getId();
        }
        ThreadInfo[] infos = THREADS.getThreadInfo(ids);
        long[] counts = new long[threads.length];
        for (int i = 0; i < infos.length; i++) {
            counts[i] = infos[i] == null ? -1 : infos[i].getWaitedCount();
        }
        return counts;
    }

    /** Each thread's CPU time so far, -1 for a thread that ended. */
    private static long[] cpu(Thread[] threads) {
        long[] ns = new long[threads.length];
        for (int i = 0; i < threads.length; i++) {
            ns[i] = THREADS.getThreadCpuTime(threads[i].getId());
        }
        return ns;
    }

    /** kmeta's manager, driven as its sender drives it. */
    static final class KmetaSide implements Side {
        final Ticker ticker = Ticker.system();
        final MetadataManager m;
        private RefreshRequest inFlight;

        KmetaSide(long backoffMs) {
            m = new MetadataManager(MetadataConfig.from(Map.of("client.id", "wakeup", "retry.backoff.ms", backoffMs,
                    "retry.backoff.max.ms", 10 * backoffMs)), ticker);
        }

        @Override
        public void await(String topic) {
            m.awaitTopic(topic, MetadataClient.ANY_PARTITION, Deadline.after(Duration.ofMillis(WAIT_BUDGET_MS), ticker));
        }

        @Override
        public Collection<String> nextRequest() throws InterruptedException {
            for (;;) {
                long now = ticker.milliTime();
                long waitMs = m.poll(now);
                inFlight = m.beginRefresh(now);
                if (inFlight != null) {
                    return inFlight.topics();
                }
                Thread.sleep(Math.max(1, Math.min(waitMs, 20)));
            }
        }

        @Override
        public void answer(MetadataResponseData data) {
            m.onResponse(inFlight, ResponseTranslator.translate(Wire.response(data), m.fetch()), ticker.milliTime());
            inFlight = null;
        }

        @Override
        public void close() {
            m.close();
        }
    }

    /** kafka-clients' {@code ProducerMetadata}, its waiters doing what {@code KafkaProducer.waitOnMetadata} does. */
    static final class KafkaSide implements Side {
        final ProducerMetadata m;
        private MetadataRequestAndVersion inFlight;

        KafkaSide(long backoffMs) {
            m = new ProducerMetadata(backoffMs, 10 * backoffMs, 300_000L, 300_000L,
                    new org.apache.kafka.common.utils.internals.LogContext("[bench] "),
                    new org.apache.kafka.common.internals.ClusterResourceListeners());
        }

        @Override
        public void await(String topic) throws InterruptedException {
            Time time = Time.SYSTEM;
            long startMs = time.milliseconds();
            m.add(topic, startMs);
            Cluster cluster = m.fetch();
            Integer count = cluster.partitionCountForTopic(topic);
            while (count == null) {
                long elapsedMs = time.milliseconds() - startMs;
                m.add(topic, startMs + elapsedMs);
                int version = m.requestUpdateForTopic(topic);
                m.awaitUpdate(version, time.timer(WAIT_BUDGET_MS - elapsedMs));
                cluster = m.fetch();
                m.maybeThrowExceptionForTopic(topic);
                count = cluster.partitionCountForTopic(topic);
            }
        }

        @Override
        public Collection<String> nextRequest() throws InterruptedException {
            for (;;) {
                long now = System.currentTimeMillis();
                long waitMs = m.timeToNextUpdate(now);
                if (waitMs == 0) {
                    inFlight = m.newMetadataRequestAndVersion(now);
                    List<String> topics = inFlight.requestBuilder.topics();
                    if (topics == null) {
                        throw new IllegalStateException("kafka-clients asked for all topics");
                    }
                    return topics;
                }
                Thread.sleep(Math.max(1, Math.min(waitMs, 20)));
            }
        }

        @Override
        public void answer(MetadataResponseData data) {
            m.update(inFlight.requestVersion, Wire.response(data), inFlight.isPartialUpdate,
                    System.currentTimeMillis());
            inFlight = null;
        }

        @Override
        public void close() {
            m.close();
        }
    }
}
