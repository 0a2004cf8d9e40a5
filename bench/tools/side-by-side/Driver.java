import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Runs Harness against several builds of cluster-model in one JVM, interleaved, and prints the fastest round of
 * each: a comparison that shared-machine load cannot bias towards one side. Arguments: the harness classes
 * directory, then one cluster-model classes directory per version. Single-threaded.
 */
public class Driver {
    public static void main(String[] args) throws Exception {
        int n = args.length - 1;
        LongSupplier[][] loops = new LongSupplier[n][2];
        for (int i = 0; i < n; i++) {
            URLClassLoader loader = new URLClassLoader(new URL[] {Path.of(args[0]).toUri().toURL(),
                Path.of(args[i + 1]).toUri().toURL()}, ClassLoader.getPlatformClassLoader());
            @SuppressWarnings("unchecked")
            IntFunction<LongSupplier> h = (IntFunction<LongSupplier>) loader.loadClass("probe.Harness")
                    .getConstructor().newInstance();
            loops[i][0] = h.apply(0);
            loops[i][1] = h.apply(1);
        }
        long[][] best = new long[n][2];
        for (long[] b : best) {
            Arrays.fill(b, Long.MAX_VALUE);
        }
        long sink = 0;
        for (int round = 0; round < 4000; round++) {
            for (int w = 0; w < 2; w++) {
                for (int i = 0; i < n; i++) {
                    long t0 = System.nanoTime();
                    for (int k = 0; k < 10; k++) {
                        sink += loops[i][w].getAsLong();
                    }
                    long d = System.nanoTime() - t0;
                    if (round > 1000) {
                        best[i][w] = Math.min(best[i][w], d);
                    }
                }
            }
        }
        for (int i = 0; i < n; i++) {
            System.out.printf("%-50s topic+partition %.2f ns  leader %.2f ns%n", args[i + 1], best[i][0] / 10240.0,
                    best[i][1] / 10240.0);
        }
        System.out.println("(checksum " + sink % 7 + ")");
    }
}
