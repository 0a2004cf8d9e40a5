package dev.kmeta.bench;

import static dev.kmeta.bench.RealBroker.BROKER_JVM;
import static dev.kmeta.bench.RealBroker.KMETA;
import static dev.kmeta.bench.RealBroker.STOCK;
import static dev.kmeta.bench.RealBroker.ms;
import dev.kmeta.testkit.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * P2k, side by side (a plain {@code main} against one real Kafka 4.4 broker from testkit, in a child JVM): {@code
 * send()} call time on a producer that knows 10,000 partitions while topics come and go. {@code --topics} (100) x
 * {@code --partitions} (100) partitions are created once. Per route and round a new producer (stock
 * {@code KafkaProducer} or {@code KmetaProducer.create}, Kafka's defaults otherwise: acks=all, linger.ms 5) is warmed
 * on every partition (one record each, then {@code flush}); {@code --threads} (4) steady threads then send keyed
 * {@code --value-bytes} (1,024) records to random topics at {@code --rate} (400) records/s in all, paced (a late
 * thread catches up at once), through four phases: {@code --warmup-seconds} (3) not measured, {@code --seconds} (25)
 * measured without churn, then churn starts: {@code --warmup-seconds} not measured and {@code --seconds} measured.
 * The churn thread creates a new 1-partition topic every {@code --churn-ms} (250) through the cluster's Admin
 * (waiting for the controller's answer) and sends one record to it through the same producer; that send's call time,
 * which includes the wait for the new topic's metadata, is reported apart.
 *
 * <p>Per run (a route's no-churn or churn phase): the measured sends' {@code send()} call time on the steady threads
 * (p50, p99, p99.9, max; nearest rank), how many took over 10 ms, GC time, and for kmeta the snapshot changes in the
 * measured window (its MXBean's version); records acknowledged / failed over both phases (after {@code flush}); on
 * Linux what the scheduler did to the route's steady threads and network thread ({@link ThreadCensus}: time waiting
 * for a CPU, preemptions, the network thread's sleeps). Within a round the routes alternate: round 1 stock first,
 * round 2 kmeta first, ... The summary checks issue 28's targets per round: kmeta's churn p99 and p99.9 &lt;= stock's
 * in the same round, and &lt;= 1.2x kmeta's own no-churn run.
 *
 * <pre>{@code
 * java -Xms1g -Xmx1g -cp bench/target/benchmarks.jar dev.kmeta.bench.SendUnderChurnHarness > bench/results/p2k.txt
 * }</pre>
 * Options: {@code --rounds N} (3), {@code --seconds N} (25), {@code --warmup-seconds N} (3), {@code --rate N} (400),
 * {@code --threads N} (4), {@code --topics N} (100), {@code --partitions N} (100), {@code --churn-ms N} (250),
 * {@code --value-bytes N} (1024), {@code --impl both|stock|kmeta}, {@code --idempotence true|false} (true),
 * {@code --linger-ms N} (5, Kafka's default), {@code --sync-after-warm true|false} (true: the warm-up's dirty pages
 * are written back before the measured phases, see {@code pair}), {@code --broker-jvm} (the child broker's JVM
 * options, {@code "-Xmx1g -XX:+UseG1GC"}; the testkit's test defaults, 256 MB, Serial GC and C1 only, spend their time
 * in full GCs with 10,000 partitions, and with 1 GB still stall sends for seconds on this machine). About 1.5-4
 * minutes per route and round (the warm-up on 10,000 partitions takes 10 s to 2 minutes), plus ~1 min for the
 * topics; the program exits (closing the broker) if it runs longer than twice its estimate plus 5 minutes.
 * {@code --print-churn true|false} (false): print each churn topic's first {@code send()} time, in order.
 * {@code --slow-detail true|false} (false): each send over 10 ms printed with its start instant and its time split
 * into CPU, waiting for a CPU and blocked, and its minor page faults; per run, the sends that waited 1 ms or more for
 * a CPU (Linux only).
 * {@code --together true|false} (false): with {@code --impl both}, the two routes run at once, each at the full rate
 * with its own threads (their sends interleaved), rather than one after the other: a round's two windows then meet the
 * same machine - the broker's, the JIT's and the other JVM threads' moments - so the per-round kmeta/stock ratio is a
 * paired comparison (one after the other, a route's p50 moved 8-30 us between windows a minute apart on a 2-core
 * machine, more than the difference measured).
 * {@code --stock-slot} / {@code --kmeta-slot} ({@code stock} / {@code kmeta}): what runs in each slot, for controls -
 * {@code stock} in both is an A/A run (the harness's own spread and bias), {@code stock-interceptor} a stock producer
 * with an interceptor that does nothing (the price of kafka-clients' interceptor hop, which the route pays).
 * {@code --storage DIR} (/dev/shm where it exists): where the broker's log dirs go - on tmpfs, the kernel's write-back
 * of dirty pages (the warm-up's 10,000 files, other builds' writes) cannot stall the broker inside a measured window.
 *
 * <p>Not thread-safe; a program.
 */
public final class SendUnderChurnHarness {
    private static final long SLOW_NS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The producer settings of {@code --idempotence} over Kafka's defaults, both routes. */
    private static Map<String, Object> producerExtra = Map.of();
    private static boolean printChurn;
    /**
     * {@code --send-cpu}: each steady send's own CPU time is read too ({@code getCurrentThreadCpuTime} around it, two
     * system calls outside the timed span): the route's work on the CPU, cache-miss stalls included, apart from waits.
     */
    private static boolean sendCpu;
    /**
     * {@code --slow-detail}: around each steady send the thread's CPU time, run-queue wait and minor page faults
     * ({@link ThreadSchedStats}) are read too; each send over 10 ms is printed with its wall-clock start (to find it in
     * a JFR recording), its time split into CPU, waiting for a CPU and the rest (blocked) and its page faults, and each
     * run counts the sends that waited 1 ms or more for a CPU.
     */
    private static boolean slowDetail;
    /** A wall-clock instant and the nanoTime read with it: a send's nanoTime start as an instant. */
    private static final java.time.Instant BASE_INSTANT = java.time.Instant.now();
    private static final long BASE_NANOS = System.nanoTime();
    /**
     * What each slot runs ({@code --stock-slot}, {@code --kmeta-slot}): by default the slot's own route; a control
     * puts another route in a slot (a second stock producer: an A/A run, the harness's own spread and bias; a stock
     * producer with a no-op interceptor: the price of kafka-clients' interceptor hop). Results keep the slot's name.
     */
    private static final Map<String, String> slotKinds = new java.util.HashMap<>(Map.of(STOCK, STOCK, KMETA, KMETA));

    private SendUnderChurnHarness() {
    }

    /** The settings of a series. */
    record Settings(int seconds, int warmupSeconds, int rate, int threads, int topics, int partitions, int churnMs,
                    int valueBytes, boolean syncAfterWarm) {
    }

    /** One run's outcome. The percentiles are in ns, -1 when nothing was measured. */
    record Run(int round, String impl, boolean churn, int sends, long p50Ns, long p99Ns, long p999Ns, long maxNs,
               int over10ms, long acked, long failed, long snapshotChanges, int churnTopics, long churnSendMedianNs,
               long churnSendMaxNs, long gcMs, String load, long senderPolls, long bufferWaitMs, long networkCpuMs,
               long requests, long networkAllocKib, long sendCpuP50Ns, String census) {
        /**
         * p50 and p99 are tens of microseconds: printed to a tenth of one (4 decimals; at 3, a 10 us p50 moved in 10%
         * steps, as coarse as the 1.1x target it is held to), the rest as ms().
         */
        private static String msFine(long ns) {
            return ns < 0 ? "-" : String.format(Locale.ROOT, "%.4f", ns / 1e6);
        }

        String line() {
            return String.format(Locale.ROOT, "round %d %s%s %s: %d sends, send() p50 %s / p99 %s / p99.9 %s / max %s"
                    + " ms, %d over 10 ms; kmeta snapshot changes %s; GC %d ms; Sender polls %d, requests %d,"
                    + " buffer-pool wait %d ms, network thread CPU %d ms, allocated %d KiB%s%s; load %s%s", round, impl,
                    slotKinds.get(impl).equals(impl) ? "" : " (" + slotKinds.get(impl) + ")",
                    churn ? "churn" : "no churn", sends, msFine(p50Ns), msFine(p99Ns), ms(p999Ns), ms(maxNs), over10ms,
                    snapshotChanges < 0 ? "-" : Long.toString(snapshotChanges), gcMs, senderPolls, requests,
                    bufferWaitMs,
                    networkCpuMs, networkAllocKib,
                    sendCpuP50Ns < 0 ? "" : "; send() CPU p50 " + sendCpuP50Ns + " ns", census, load, !churn ? ""
                            : String.format(Locale.ROOT, "; churn topics %d (first send median %s ms, max %s ms);"
                            + " both phases: acked %d, failed %d", churnTopics, ms(churnSendMedianNs),
                            ms(churnSendMaxNs), acked, failed));
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("rounds", "3");
        defaults.put("seconds", "25");
        defaults.put("warmup-seconds", "3");
        defaults.put("rate", "400");
        defaults.put("threads", "4");
        defaults.put("topics", "100");
        defaults.put("partitions", "100");
        defaults.put("churn-ms", "250");
        defaults.put("value-bytes", "1024");
        defaults.put("impl", "both");
        defaults.put("sync-after-warm", "true");
        defaults.put("idempotence", "true");
        defaults.put("linger-ms", "5");
        defaults.put("broker-jvm", BROKER_JVM);
        defaults.put("print-churn", "false");
        defaults.put("send-cpu", "false");
        defaults.put("slow-detail", "false");
        defaults.put("together", "false");
        defaults.put("stock-slot", STOCK);
        defaults.put("kmeta-slot", KMETA);
        // the broker's log dirs: on tmpfs where there is one, so that the kernel's write-back of dirty pages (other
        // builds', the warm-up's 10,000 files) does not stall the broker inside a measured window
        defaults.put("storage", Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm"
                : System.getProperty("java.io.tmpdir"));
        Map<String, String> opts = Args.parse(args, defaults);
        int rounds = Args.intOpt(opts, "rounds");
        Settings s = new Settings(Args.intOpt(opts, "seconds"), Args.intOpt(opts, "warmup-seconds"),
                Args.intOpt(opts, "rate"), Args.intOpt(opts, "threads"), Args.intOpt(opts, "topics"),
                Args.intOpt(opts, "partitions"), Args.intOpt(opts, "churn-ms"), Args.intOpt(opts, "value-bytes"),
                Boolean.parseBoolean(opts.get("sync-after-warm")));
        String impl = opts.get("impl");
        printChurn = Boolean.parseBoolean(opts.get("print-churn"));
        slowDetail = Boolean.parseBoolean(opts.get("slow-detail"));
        sendCpu = slowDetail || Boolean.parseBoolean(opts.get("send-cpu"));
        boolean together = Boolean.parseBoolean(opts.get("together"));
        producerExtra = Map.of("enable.idempotence", opts.get("idempotence"), "linger.ms", opts.get("linger-ms"));
        slotKinds.put(STOCK, RealBroker.checkKind("--stock-slot", opts.get("stock-slot")));
        slotKinds.put(KMETA, RealBroker.checkKind("--kmeta-slot", opts.get("kmeta-slot")));
        RealBroker.impls(impl, 1); // checks the option
        if (s.rate() < s.threads() || s.seconds() < 1 || s.threads() < 1 || s.churnMs() < 1) {
            throw new IllegalArgumentException("--rate must be >= --threads, --seconds, --threads, --churn-ms >= 1");
        }
        int pairsPerRound = impl.equals("both") && !together ? 2 : 1;
        long estimateS = 90 + (long) rounds * pairsPerRound * (2 * (s.seconds() + s.warmupSeconds()) + 120);
        RealBroker.watchdog("SendUnderChurnHarness", TimeUnit.SECONDS.toMillis(2 * estimateS + 300));
        System.out.printf(Locale.ROOT, "SendUnderChurnHarness (P2k): %d rounds, %d topics x %d partitions, %d threads"
                        + " at %d records/s in all, keyed %d B records, churn every %d ms, %d s measured after %d s;"
                        + " broker JVM %s; slots: stock = %s, kmeta = %s; %s%n", rounds, s.topics(), s.partitions(),
                s.threads(), s.rate(), s.valueBytes(), s.churnMs(), s.seconds(), s.warmupSeconds(),
                opts.get("broker-jvm"), slotKinds.get(STOCK), slotKinds.get(KMETA), Args.jvm());
        Path storage = Files.createTempDirectory(Path.of(opts.get("storage")), "kmeta-p2k-");
        System.out.println("broker storage: " + storage);
        List<Run> runs = new ArrayList<>();
        try (KafkaCluster cluster = RealBroker.startCluster(storage, opts.get("broker-jvm"))) {
            List<String> topics = new ArrayList<>();
            for (int t = 0; t < s.topics(); t++) {
                topics.add(String.format(Locale.ROOT, "p2k-%03d", t));
            }
            long createNs = System.nanoTime();
            RealBroker.createTopics(cluster.admin(), topics, s.partitions(), Map.of(), 600_000);
            System.out.printf(Locale.ROOT, "created %d partitions in %d ms; broker in a child JVM, its controller"
                            + " in this one; load %s%n", s.topics() * s.partitions(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - createNs), Args.load());
            AtomicLong churnSeq = new AtomicLong();
            for (int round = 1; round <= rounds; round++) {
                List<String> order = RealBroker.impls(impl, round);
                List<List<String>> groups = together ? List.of(order) : order.stream().map(List::of).toList();
                for (List<String> group : groups) {
                    for (Run r : pair(cluster, s, topics, round, group, churnSeq)) {
                        System.out.println(r.line());
                        runs.add(r);
                    }
                }
            }
        } finally {
            deleteQuietly(storage);
        }
        summary(runs, rounds);
    }

    /**
     * One round of {@code impls}: per route a new producer, warmed on every partition, then its steady threads through
     * four phases: warm-up, no churn (measured), churn warm-up, churn (measured). Several routes run at once
     * ({@code --together}): their threads' sends interleave evenly in the send period, and the churn thread sends each
     * new topic's first record through every route, in an order that alternates - so both meet the same moments of
     * the machine. Returns each route's no-churn and churn run.
     */
    private static List<Run> pair(KafkaCluster cluster, Settings s, List<String> topics, int round,
                                  List<String> impls, AtomicLong churnSeq) throws Exception {
        System.gc(); // each pair starts from a collected heap, whatever the one before left
        List<Route> routes = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        try {
            for (String impl : impls) {
                routes.add(new Route(impl, "p2k-" + impl + "-r" + round, cluster, s));
            }
            byte[] value = new byte[s.valueBytes()];
            for (Route r : routes) {
                r.warm(topics, s, value);
            }
            if (s.syncAfterWarm()) {
                // The warm-up wrote one record to each of the broker's 10,000 partitions: dirty pages in 10,000 log
                // and index files, which the kernel writes back dirty_expire_centisecs (30 s) later - inside the
                // measured windows of a route whose warm-up was fast (kmeta's: 4-15 s, stock's: 40-140 s), where the
                // broker's appends then block on pages under writeback. Written back here, before anything is
                // measured, for both routes alike.
                long syncNs = System.nanoTime();
                new ProcessBuilder("sync").inheritIO().start().waitFor();
                System.out.printf(Locale.ROOT, "  %s: sync after the warm-up took %d ms%n", clientIds(routes),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - syncNs));
            }
            for (Route r : routes) {
                r.failed.set(0); // the runs' counts start here
                r.acked.set(0);
                r.firstError.set(null);
            }
            long warmupNs = TimeUnit.SECONDS.toNanos(s.warmupSeconds());
            long measuredNs = TimeUnit.SECONDS.toNanos(s.seconds());
            long startNs = System.nanoTime();
            // phase bounds: [0] quiet from, [1] quiet to = churn starts, [2] churn measured from, [3] end
            long quietFromNs = startNs + warmupNs;
            long churnStartNs = quietFromNs + measuredNs;
            long churnFromNs = churnStartNs + warmupNs;
            long endNs = churnFromNs + measuredNs;
            long periodNs = TimeUnit.SECONDS.toNanos(1) * s.threads() / s.rate();
            int slots = s.threads() * routes.size(); // each thread of each route gets its own offset in the period
            for (int ri = 0; ri < routes.size(); ri++) {
                Route route = routes.get(ri);
                for (int t = 0; t < s.threads(); t++) {
                    int me = t;
                    long firstNs = startNs + (long) (t * routes.size() + ri) * periodNs / slots;
                    Thread thread = new Thread(() -> route.steady(me, firstNs, periodNs, topics, value, quietFromNs,
                            churnStartNs, churnFromNs, endNs), "p2k-steady-" + route.impl + "-" + t);
                    thread.setDaemon(true);
                    threads.add(thread);
                }
            }
            Admin admin = cluster.admin();
            Thread churner = new Thread(
                    () -> churn(admin, routes, s, value, churnSeq, churnStartNs, churnFromNs, endNs), "p2k-churn");
            churner.setDaemon(true);
            threads.add(churner);
            threads.forEach(Thread::start);
            Map<String, Long> threadIds = ThreadCensus.nativeIds(); // one thread dump for every route's census
            for (Route r : routes) {
                r.census(threadIds, s);
            }
            List<Thread> diags = new ArrayList<>();
            if (Boolean.getBoolean("p2k.diag")) {
                routes.forEach(r -> diags.add(ProducerDiag.start(r.producer, r.clientId, 500)));
            }
            long[] versions = new long[4];
            long[] gcs = new long[4];
            String[] loads = new String[2];
            long[] marks = {quietFromNs, churnStartNs, churnFromNs, endNs};
            for (int i = 0; i < 4; i++) {
                LockSupport.parkNanos(Math.max(0, marks[i] - System.nanoTime())); // until the next phase bound
                versions[i] = RealBroker.kmetaVersion();
                gcs[i] = RealBroker.gcMs();
                for (Route r : routes) {
                    r.sample(i);
                }
                if (i == 3) {
                    routes.forEach(r -> r.sampled.countDown());
                }
                if (i == 1 || i == 3) {
                    loads[i / 2] = Args.load();
                }
            }
            diags.forEach(Thread::interrupt);
            for (Route r : routes) {
                dev.kmeta.producer.KmetaProducer.metadataOf(r.producer).ifPresent(m -> System.out.println("  "
                        + r.clientId + " " + dev.kmeta.producer.KmetaProducer.routeStats(m)));
            }
            if (!RealBroker.joinAll(threads, 60_000)) {
                System.out.println("  a sending thread was still running 60 s after the end (interrupted)");
            }
            List<Run> out = new ArrayList<>();
            for (Route r : routes) {
                out.addAll(r.runs(round, s, versions, gcs, loads));
            }
            return out;
        } finally {
            threads.forEach(Thread::interrupt);
            RealBroker.joinAll(threads, 10_000);
            for (Route r : routes) {
                r.producer.close(Duration.ofSeconds(30));
            }
        }
    }

    private static String clientIds(List<Route> routes) {
        return String.join(", ", routes.stream().map(r -> r.clientId).toList());
    }

    /**
     * The churn thread: a new 1-partition topic every {@code --churn-ms}, its first record sent through every route
     * (the order alternating topic by topic), each send timed.
     */
    private static void churn(Admin admin, List<Route> routes, Settings s, byte[] value, AtomicLong churnSeq,
                              long churnStartNs, long churnFromNs, long endNs) {
        long nextNs = churnStartNs;
        long periodChurnNs = TimeUnit.MILLISECONDS.toNanos(s.churnMs());
        while (!Thread.currentThread().isInterrupted()) {
            long now = System.nanoTime();
            if (nextNs >= endNs) {
                return;
            }
            if (now < nextNs) {
                LockSupport.parkNanos(nextNs - now); // the churn's cadence
                continue;
            }
            nextNs += periodChurnNs;
            long seq = churnSeq.incrementAndGet();
            String name = "p2k-churn-" + seq;
            try {
                admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get(10, TimeUnit.SECONDS);
                for (int i = 0; i < routes.size(); i++) {
                    routes.get((int) ((i + seq) % routes.size())).churnSend(name, value, churnFromNs);
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                System.out.println("  churn topic " + name + ": " + e);
            }
        }
    }

    /** One route's producer in a round, its steady threads' samples and its counters. */
    private static final class Route {
        /** The slot ({@link RealBroker#STOCK} or {@link RealBroker#KMETA}); the producer is the slot's kind. */
        final String impl;
        final String clientId;
        final Producer<byte[], byte[]> producer;
        final AtomicLong acked = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicReference<Exception> firstError = new AtomicReference<>();
        final Callback callback;
        final long[][][] times; // [0] no churn, [1] churn; per thread
        final long[][][] cpuTimes;
        final int[][] counts;
        /** {@code --slow-detail}: per phase and thread, sends that waited >= 1 ms for a CPU, and their wait. */
        final int[][] cpuWaits;
        final long[][] cpuWaitNs;
        final List<String> slowSends = new ArrayList<>();
        final int capacity;
        final List<Long> churnTimes = new ArrayList<>();
        final long[] polls = new long[4];
        final long[] requests = new long[4];
        final long[] bufferWaitNs = new long[4];
        final long[] networkCpuNs = new long[4];
        final long[] networkAlloc = new long[4];
        /** The steady threads' and the network thread's scheduler counters at each phase bound. */
        ThreadCensus steadyCensus;
        ThreadCensus networkCensus;
        final ThreadCensus.Counts[] steadyAt = new ThreadCensus.Counts[4];
        final ThreadCensus.Counts[] networkAt = new ThreadCensus.Counts[4];
        /** Counted down once the last phase bound was sampled: the steady threads end after it. */
        final java.util.concurrent.CountDownLatch sampled = new java.util.concurrent.CountDownLatch(1);

        Route(String impl, String clientId, KafkaCluster cluster, Settings s) {
            this.impl = impl;
            this.clientId = clientId;
            this.producer = RealBroker.producer(slotKinds.get(impl),
                    RealBroker.producerProps(cluster.bootstrapServers(), clientId, producerExtra));
            this.callback = (metadata, error) -> {
                (error == null ? acked : failed).incrementAndGet();
                if (error != null) {
                    firstError.compareAndSet(null, error);
                }
            };
            capacity = (int) Math.min(Integer.MAX_VALUE - 8, 2L * s.rate() * (s.seconds() + 1) / s.threads() + 1_000);
            times = new long[2][s.threads()][capacity];
            cpuTimes = sendCpu ? new long[2][s.threads()][capacity] : null;
            counts = new int[2][s.threads()];
            cpuWaits = new int[2][s.threads()];
            cpuWaitNs = new long[2][s.threads()];
        }

        /** One record to each partition, then flush. */
        void warm(List<String> topics, Settings s, byte[] value) {
            long warmNs = System.nanoTime();
            for (String topic : topics) {
                for (int p = 0; p < s.partitions(); p++) {
                    producer.send(new ProducerRecord<>(topic, p, null, value), callback);
                }
            }
            producer.flush();
            System.out.printf(Locale.ROOT, "  %s: warmed on %d partitions in %d ms, %d records failed%s%n", clientId,
                    topics.size() * s.partitions(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - warmNs),
                    failed.get(), firstError.get() == null ? "" : " (first: " + firstError.get() + ")");
        }

        /** Steady thread {@code me}: keyed records to random topics, one per {@code periodNs} from {@code firstNs}. */
        void steady(int me, long firstNs, long periodNs, List<String> topics, byte[] value, long quietFromNs,
                    long churnStartNs, long churnFromNs, long endNs) {
            java.lang.management.ThreadMXBean cpuClock = java.lang.management.ManagementFactory.getThreadMXBean();
            ThreadLocalRandom random = ThreadLocalRandom.current();
            ThreadSchedStats sched = slowDetail ? ThreadSchedStats.open() : null;
            long nextNs = firstNs;
            while (true) {
                long now = System.nanoTime();
                if (nextNs >= endNs || Thread.currentThread().isInterrupted()) {
                    if (sched != null) {
                        try {
                            sched.close();
                        } catch (java.io.IOException e) {
                            System.out.println("  closing schedstat: " + e);
                        }
                    }
                    try { // alive until the last phase bound's census was read (a thread that ended has no counters)
                        sampled.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return;
                }
                if (now < nextNs) {
                    LockSupport.parkNanos(nextNs - now); // pacing to the rate, not synchronization
                    continue;
                }
                byte[] key = new byte[8];
                random.nextBytes(key);
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(
                        topics.get(random.nextInt(topics.size())), key, value);
                long q0 = sched != null ? sched.runQueueNs() : 0;
                long f0 = sched != null ? sched.minorFaults() : 0;
                long c0 = sendCpu ? cpuClock.getCurrentThreadCpuTime() : 0;
                long t0 = System.nanoTime();
                try {
                    producer.send(record, callback);
                } catch (RuntimeException e) {
                    failed.incrementAndGet();
                }
                long t1 = System.nanoTime();
                long c1 = sendCpu ? cpuClock.getCurrentThreadCpuTime() : 0;
                long f1 = sched != null ? sched.minorFaults() : 0;
                long q1 = sched != null ? sched.runQueueNs() : 0;
                int phase = t0 >= churnFromNs ? 1 : t0 >= quietFromNs && t0 < churnStartNs ? 0 : -1;
                if (phase >= 0 && slowDetail) {
                    noteDetail(phase, me, t0, t1 - t0, c1 - c0, q1 - q0, sched != null ? f1 - f0 : -1);
                }
                if (phase >= 0 && counts[phase][me] < capacity) {
                    if (cpuTimes != null) {
                        cpuTimes[phase][me][counts[phase][me]] = c1 - c0;
                    }
                    times[phase][me][counts[phase][me]++] = t1 - t0;
                }
                nextNs += periodNs;
            }
        }

        /** {@code --slow-detail}: one measured send's CPU-queue wait counted, and the send noted if over 10 ms. */
        private void noteDetail(int phase, int me, long t0, long wallNs, long cpuNs, long queueNs, long faults) {
            boolean split = faults >= 0;
            if (queueNs >= 1_000_000) {
                cpuWaits[phase][me]++;
                cpuWaitNs[phase][me] += queueNs;
            }
            if (wallNs > SLOW_NS) {
                String line = String.format(Locale.ROOT, "  slow send: %s %s at %s: %.2f ms - CPU %.2f, waiting for a"
                                + " CPU %s, other (blocked) %s; minor page faults %s", Thread.currentThread().getName(),
                        phase == 0 ? "no churn" : "churn", BASE_INSTANT.plusNanos(t0 - BASE_NANOS), wallNs / 1e6,
                        cpuNs / 1e6, split ? String.format(Locale.ROOT, "%.2f", queueNs / 1e6) : "?",
                        split ? String.format(Locale.ROOT, "%.2f", (wallNs - cpuNs - queueNs) / 1e6) : "?",
                        split ? Long.toString(faults) : "?");
                synchronized (slowSends) {
                    slowSends.add(line);
                }
            }
        }

        /** A churn topic's first record through this route (timed when in the measured churn phase). */
        void churnSend(String topic, byte[] value, long churnFromNs) {
            long t0 = System.nanoTime();
            producer.send(new ProducerRecord<>(topic, new byte[8], value), callback);
            long t1 = System.nanoTime();
            if (t0 >= churnFromNs) {
                synchronized (churnTimes) {
                    churnTimes.add(t1 - t0);
                }
            }
        }

        private void printDetail(Settings s) {
            synchronized (slowSends) {
                slowSends.forEach(System.out::println);
            }
            for (int phase = 0; phase < 2; phase++) {
                int waits = 0;
                long waitNs = 0;
                for (int t = 0; t < s.threads(); t++) {
                    waits += cpuWaits[phase][t];
                    waitNs += cpuWaitNs[phase][t];
                }
                System.out.printf(Locale.ROOT, "  %s %s: %d sends waited >= 1 ms for a CPU, %.1f ms in all%n",
                        clientId, phase == 0 ? "no churn" : "churn", waits, waitNs / 1e6);
            }
        }

        /** Finds this route's steady threads and network thread (started) for their scheduler counters. */
        void census(Map<String, Long> threadIds, Settings s) {
            List<String> steady = new ArrayList<>();
            for (int t = 0; t < s.threads(); t++) {
                steady.add("p2k-steady-" + impl + "-" + t);
            }
            steadyCensus = ThreadCensus.of(threadIds, steady);
            networkCensus = ThreadCensus.of(threadIds, List.of("kafka-producer-network-thread | " + clientId));
        }

        /** The producer's counters at phase bound {@code i}. */
        void sample(int i) {
            steadyAt[i] = steadyCensus.read();
            networkAt[i] = networkCensus.read();
            polls[i] = (long) metric(producer, "select-total");
            requests[i] = (long) metric(producer, "request-total");
            bufferWaitNs[i] = (long) metric(producer, "bufferpool-wait-time-ns-total");
            networkCpuNs[i] = networkThreadUse(clientId, false);
            networkAlloc[i] = networkThreadUse(clientId, true);
        }

        /** After the steady threads ended: flush, then the no-churn and the churn run. */
        List<Run> runs(int round, Settings s, long[] versions, long[] gcs, String[] loads) {
            producer.flush();
            if (firstError.get() != null) {
                System.out.println("  " + clientId + ": " + failed.get() + " records failed, first: "
                        + firstError.get());
            }
            long[] churnSorted;
            synchronized (churnTimes) {
                if (printChurn) {
                    StringBuilder b = new StringBuilder("  " + clientId
                            + " churn topics' first send() (ms, in order):");
                    churnTimes.forEach(t -> b.append(' ').append(ms(t)));
                    System.out.println(b);
                }
                churnSorted = churnTimes.stream().mapToLong(Long::longValue).sorted().toArray();
            }
            if (slowDetail) {
                printDetail(s);
            }
            boolean kmeta = slotKinds.get(impl).equals(KMETA);
            List<Run> out = new ArrayList<>();
            for (int phase = 0; phase < 2; phase++) {
                int n = 0;
                for (int c : counts[phase]) {
                    n += c;
                }
                long[] all = new long[n];
                long[] cpuAll = new long[n];
                int at = 0;
                int over = 0;
                for (int t = 0; t < s.threads(); t++) {
                    for (int i = 0; i < counts[phase][t]; i++) {
                        cpuAll[at] = cpuTimes == null ? 0 : cpuTimes[phase][t][i];
                        all[at++] = times[phase][t][i];
                        over += times[phase][t][i] > SLOW_NS ? 1 : 0;
                    }
                }
                long[] sorted = RealBroker.sorted(all, n);
                long vFrom = versions[2 * phase];
                long vTo = versions[2 * phase + 1];
                boolean churn = phase == 1;
                out.add(new Run(round, impl, churn, n, RealBroker.quantile(sorted, n, 0.50),
                        RealBroker.quantile(sorted, n, 0.99), RealBroker.quantile(sorted, n, 0.999),
                        n == 0 ? -1 : sorted[n - 1], over, churn ? acked.get() : -1, churn ? failed.get() : -1,
                        kmeta && vFrom >= 0 && vTo >= 0 ? vTo - vFrom : -1, churn ? churnSorted.length : 0,
                        churn ? RealBroker.quantile(churnSorted, churnSorted.length, 0.5) : -1,
                        churn && churnSorted.length > 0 ? churnSorted[churnSorted.length - 1] : -1,
                        gcs[2 * phase + 1] - gcs[2 * phase], loads[phase], polls[2 * phase + 1] - polls[2 * phase],
                        (bufferWaitNs[2 * phase + 1] - bufferWaitNs[2 * phase]) / 1_000_000,
                        (networkCpuNs[2 * phase + 1] - networkCpuNs[2 * phase]) / 1_000_000,
                        requests[2 * phase + 1] - requests[2 * phase],
                        (networkAlloc[2 * phase + 1] - networkAlloc[2 * phase]) / 1024,
                        sendCpu ? RealBroker.quantile(RealBroker.sorted(cpuAll, n), n, 0.50) : -1,
                        censusText(phase)));
            }
            return out;
        }

        /**
         * A run's scheduler counters: the steady threads' run-queue wait and preemptions, the network thread's
         * run-queue wait, preemptions and sleeps (empty when the threads were not found).
         */
        private String censusText(int phase) {
            if (steadyCensus.size() == 0 || networkCensus.size() == 0) {
                return "";
            }
            ThreadCensus.Counts st = steadyAt[2 * phase + 1].minus(steadyAt[2 * phase]);
            ThreadCensus.Counts net = networkAt[2 * phase + 1].minus(networkAt[2 * phase]);
            return String.format(Locale.ROOT, "; steady threads waited for a CPU %.1f ms, preempted %d;"
                    + " network thread waited for a CPU %.1f ms, preempted %d, slept %d", st.runQueueNs() / 1e6,
                    st.preempted(), net.runQueueNs() / 1e6, net.preempted(), net.slept());
        }
    }

    /**
     * A producer-metrics value (both routes run kafka-clients' own Sender and NetworkClient): {@code select-total}
     * counts the network thread's selector polls, one per Sender loop; {@code bufferpool-wait-time-ns-total} the time
     * sends waited for buffer memory. -1 when absent.
     */
    private static double metric(Producer<?, ?> producer, String name) {
        for (Map.Entry<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> e
                : producer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")) {
                Object v = e.getValue().metricValue();
                return v instanceof Number ? ((Number) v).doubleValue() : -1;
            }
        }
        return -1;
    }

    /**
     * CPU time (ns) or, with {@code allocated}, bytes allocated so far by the producer's network thread
     * ({@code kafka-producer-network-thread | clientId}); -1 if none.
     */
    private static long networkThreadUse(String clientId, boolean allocated) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        String name = "kafka-producer-network-thread | " + clientId;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                return !allocated ? mx.getThreadCpuTime(t.getId())
                        : mx instanceof com.sun.management.ThreadMXBean
                        ? ((com.sun.management.ThreadMXBean) mx).getThreadAllocatedBytes(t.getId()) : -1;
            }
        }
        return -1;
    }

    private static void summary(List<Run> runs, int rounds) {
        System.out.println();
        System.out.println("send() call time on the steady threads, ms (p50 / p99 / p99.9 / max), per round:");
        System.out.println("| round | stock no churn | kmeta no churn | stock churn | kmeta churn | sends > 10 ms,"
                + " churn: stock / kmeta | kmeta snapshot changes, churn (no churn) | kmeta churn p99, p99.9 <="
                + " stock's | kmeta churn p99, p99.9 <= 1.2x its no churn |");
        System.out.println("|---|---|---|---|---|---:|---:|---|---|");
        for (int round = 1; round <= rounds; round++) {
            Run sq = find(runs, round, STOCK, false);
            Run kq = find(runs, round, KMETA, false);
            Run sc = find(runs, round, STOCK, true);
            Run kc = find(runs, round, KMETA, true);
            String vsStock = sc == null || kc == null ? "-" : verdict(kc.p99Ns() <= sc.p99Ns(),
                    kc.p999Ns() <= sc.p999Ns());
            String vsSelf = kq == null || kc == null ? "-" : verdict(kc.p99Ns() <= 1.2 * kq.p99Ns(),
                    kc.p999Ns() <= 1.2 * kq.p999Ns());
            System.out.printf(Locale.ROOT, "| %d | %s | %s | %s | %s | %s / %s | %s (%s) | %s | %s |%n", round,
                    cell(sq), cell(kq), cell(sc), cell(kc), sc == null ? "-" : sc.over10ms(),
                    kc == null ? "-" : kc.over10ms(), kc == null ? "-" : kc.snapshotChanges(),
                    kq == null ? "-" : kq.snapshotChanges(), vsStock, vsSelf);
        }
        ratios(runs, rounds);
        System.out.println("first send to a new topic (churn thread), median / max ms:");
        for (Run r : runs) {
            if (r.churn()) {
                System.out.printf(Locale.ROOT, "  round %d %s: %s / %s over %d topics%n", r.round(), r.impl(),
                        ms(r.churnSendMedianNs()), ms(r.churnSendMaxNs()), r.churnTopics());
            }
        }
        System.out.println("load at the end: " + Args.load());
    }

    /**
     * Issue 38's targets, per round and as the median over the rounds: kmeta's send() p50 and p99 over stock's in the
     * same round (no churn, churn), and the Sender's loops and produce requests likewise.
     */
    private static void ratios(List<Run> runs, int rounds) {
        System.out.println("kmeta / stock per round (p50, p99, Sender loops, requests), no churn | churn:");
        List<List<Double>> columns = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            columns.add(new ArrayList<>());
        }
        for (int round = 1; round <= rounds; round++) {
            StringBuilder line = new StringBuilder("  round " + round + ":");
            for (boolean churn : new boolean[] {false, true}) {
                Run st = find(runs, round, STOCK, churn);
                Run km = find(runs, round, KMETA, churn);
                if (st == null || km == null) {
                    continue;
                }
                double[] r = {(double) km.p50Ns() / st.p50Ns(), (double) km.p99Ns() / st.p99Ns(),
                    (double) km.senderPolls() / st.senderPolls(), (double) km.requests() / st.requests()};
                for (int i = 0; i < r.length; i++) {
                    columns.get((churn ? 4 : 0) + i).add(r[i]);
                }
                line.append(String.format(Locale.ROOT, "%s %.2f %.2f %.2f %.2f", churn ? " |" : "", r[0], r[1], r[2],
                        r[3]));
            }
            System.out.println(line);
        }
        StringBuilder medians = new StringBuilder("  median:");
        for (int c = 0; c < columns.size(); c++) {
            List<Double> col = columns.get(c);
            col.sort(null);
            double m = col.isEmpty() ? Double.NaN : col.size() % 2 == 1 ? col.get(col.size() / 2)
                    : (col.get(col.size() / 2 - 1) + col.get(col.size() / 2)) / 2;
            medians.append(String.format(Locale.ROOT, "%s %.2f", c == 4 ? " |" : "", m));
        }
        System.out.println(medians);
    }

    private static String verdict(boolean p99, boolean p999) {
        return p99 && p999 ? "met" : "**not met** (p99 " + (p99 ? "yes" : "no") + ", p99.9 " + (p999 ? "yes" : "no")
                + ")";
    }

    private static String cell(Run r) {
        return r == null ? "-" : ms(r.p50Ns()) + " / " + ms(r.p99Ns()) + " / " + ms(r.p999Ns()) + " / "
                + ms(r.maxNs());
    }

    private static Run find(List<Run> runs, int round, String impl, boolean churn) {
        for (Run r : runs) {
            if (r.round() == round && r.impl().equals(impl) && r.churn() == churn) {
                return r;
            }
        }
        return null;
    }

    static void deleteQuietly(Path dir) {
        try {
            Files.deleteIfExists(dir); // the cluster deleted what it stored there
        } catch (java.io.IOException e) {
            System.out.println("left " + dir + ": " + e);
        }
    }
}
