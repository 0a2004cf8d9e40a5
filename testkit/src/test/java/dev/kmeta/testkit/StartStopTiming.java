package dev.kmeta.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A timing harness, not part of the suite (its name does not end in Test): what a start, a close, a broker stop and
 * a broker start cost per cluster shape. Run it alone: {@code ./mvnw -B -q -pl testkit -am verify
 * -Dtest=StartStopTiming -Dsurefire.failIfNoSpecifiedTests=false}; it prints one line per shape (median of the
 * rounds after a first warm-up one) and asserts nothing.
 */
class StartStopTiming {
    private static final int ROUNDS = Integer.getInteger("kmeta.timing.rounds", 4);

    @Test
    void measure() {
        TestCertificates certs = TestCertificates.create(Path.of("target"));
        try {
            List<String> lines = new ArrayList<>();
            time(lines, "1 combined", () -> KafkaCluster.builder());
            time(lines, "3 brokers + controller", () -> KafkaCluster.builder().brokers(3));
            time(lines, "1 combined SASL_SSL", () -> KafkaCluster.builder()
                    .clientSecurity(ClientSecurity.saslSsl(certs)));
            time(lines, "2 brokers child JVMs", () -> KafkaCluster.builder().brokers(2).childProcesses(true));
            lines.forEach(System.out::println);
        } finally {
            certs.close();
        }
    }

    private static void time(List<String> lines, String shape, Supplier<KafkaCluster.Builder> builder) {
        String only = System.getProperty("kmeta.timing.shapes", "");
        if (!only.isEmpty() && !shape.contains(only)) {
            return;
        }
        long[][] ms = new long[4][ROUNDS];
        for (int round = -1; round < ROUNDS; round++) {
            long t0 = System.nanoTime();
            KafkaCluster kafka = builder.get().build().start();
            long t1 = System.nanoTime();
            int broker = kafka.brokerIds().get(kafka.brokerIds().size() - 1);
            kafka.stopBroker(broker);
            long t2 = System.nanoTime();
            kafka.startBroker(broker);
            long t3 = System.nanoTime();
            kafka.close();
            long t4 = System.nanoTime();
            if (round >= 0) {
                ms[0][round] = (t1 - t0) / 1_000_000;
                ms[1][round] = (t2 - t1) / 1_000_000;
                ms[2][round] = (t3 - t2) / 1_000_000;
                ms[3][round] = (t4 - t3) / 1_000_000;
            }
        }
        lines.add(String.format("TIMING %-24s start %5d ms  stopBroker %5d ms  startBroker %5d ms  close %5d ms"
                + "  (medians of %d; start %s close %s)", shape, median(ms[0]), median(ms[1]), median(ms[2]),
                median(ms[3]), ROUNDS, java.util.Arrays.toString(ms[0]), java.util.Arrays.toString(ms[3])));
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
