package dev.kmeta.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out loopback ports for listeners whose port must be written into a configuration before they bind: the
 * KRaft controller's (it is named in {@code controller.quorum.voters}) and the brokers' (a restarted broker binds
 * its former ports again).
 *
 * <p>Why not bind port 0 and close: such a port lies in the kernel's ephemeral range, from which every outgoing
 * connection takes its local port, and a test suite makes thousands (producers, admin clients, probes). One of
 * them may take the port between the pick and the listener's bind, and the node fails with "Address already in
 * use". So the ports come from a band outside that range ({@code /proc/sys/net/ipv4/ip_local_port_range}, taken
 * as 32768-60999 where it cannot be read), which the kernel never gives to an outgoing connection: only an
 * explicit bind by someone else can take such a port.
 *
 * <p>Each JVM starts at a random offset in the band and steps on from there, never handing out a port twice, so
 * that two JVMs (two builds side by side) rarely meet; every port is verified free by a bind just before it is
 * handed out. Should the band be empty (an ephemeral range covering every unprivileged port) or used up, ports
 * picked by the kernel (bind 0, the old way) are handed out instead, with a warning. Thread-safe.
 */
final class FreePorts {

    /** Inclusive port range. */
    record Band(int first, int last) {
        int size() {
            return Math.max(0, last - first + 1);
        }

        boolean contains(int port) {
            return port >= first && port <= last;
        }

        @Override
        public String toString() {
            return first + "-" + last;
        }
    }

    static final Path EPHEMERAL_RANGE_FILE = Paths.get("/proc/sys/net/ipv4/ip_local_port_range");
    /** Linux's default ephemeral range, assumed when the kernel's cannot be read. */
    static final Band DEFAULT_EPHEMERAL = new Band(32768, 60999);

    private static final Logger LOG = LoggerFactory.getLogger(FreePorts.class);
    private static final int FIRST_UNPRIVILEGED = 1024;
    private static final int LAST_PORT = 65535;
    /** Below it lie the ports of common servers a developer may run (Kafka's 9092, 8080, 5432, ...). */
    private static final int PREFERRED_FIRST = 10_000;
    /** The preferred first port is kept only if it leaves at least this many ports below the ephemeral range. */
    private static final int MIN_PREFERRED_BAND = 1_000;
    private static final FreePorts JVM = new FreePorts(bandOutside(ephemeralRange(EPHEMERAL_RANGE_FILE)),
            new SplittableRandom());

    private final Band band;
    private final int offset;
    private int handedOut;
    private boolean warned;

    FreePorts(Band band, SplittableRandom random) {
        this(band, band.size() == 0 ? 0 : random.nextInt(band.size()));
    }

    FreePorts(Band band, int offset) {
        this.band = band;
        this.offset = offset;
        LOG.debug("loopback ports from {} on, in band {}", band.size() == 0 ? "the kernel" : candidate(0), band);
    }

    /** A loopback port that was free a moment ago and that this JVM has not handed out before. */
    static int next() {
        return JVM.take();
    }

    /** The band this JVM hands its ports out from (empty: the kernel picks them). */
    static Band band() {
        return JVM.band;
    }

    /** The next candidate that binds; when none is left, a port the kernel picks. */
    synchronized int take() {
        while (handedOut < band.size()) {
            int port = candidate(handedOut++);
            if (bindFailure(port) == null) {
                return port;
            }
        }
        return kernelPicked();
    }

    /** The port at {@code index} of this JVM's walk through the band. */
    int candidate(int index) {
        return band.first() + (offset + index) % band.size();
    }

    private int kernelPicked() {
        if (!warned) {
            warned = true;
            LOG.warn("no free port left in band {} (outside the ephemeral range): handing out ports the kernel "
                    + "picks, which an outgoing connection may take before they are bound", band);
        }
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free loopback port", e);
        }
    }

    /**
     * Binds {@code 127.0.0.1:port} (with SO_REUSEADDR, as Kafka's listeners do) and closes it.
     *
     * @return null if the bind worked, else why it failed (a {@link java.net.BindException} if the port is taken)
     */
    static IOException bindFailure(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return null;
        } catch (IOException e) {
            return e;
        }
    }

    /** The kernel's ephemeral port range as the file states it ("32768\t60999"), or the default if unreadable. */
    static Band ephemeralRange(Path file) {
        try {
            String[] fields = Files.readString(file, StandardCharsets.US_ASCII).trim().split("\\s+");
            Band range = new Band(Integer.parseInt(fields[0]), Integer.parseInt(fields[1]));
            if (fields.length == 2 && range.size() > 0 && range.first() > 0 && range.last() <= LAST_PORT) {
                return range;
            }
            LOG.debug("{} says {}: assuming {}", file, range, DEFAULT_EPHEMERAL);
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot read {} ({}): assuming {}", file, e.toString(), DEFAULT_EPHEMERAL);
        }
        return DEFAULT_EPHEMERAL;
    }

    /**
     * The larger of the unprivileged bands below and above the ephemeral range; below it, ports from
     * {@value #PREFERRED_FIRST} on unless that leaves fewer than {@value #MIN_PREFERRED_BAND}. Empty if the
     * ephemeral range leaves no unprivileged port.
     */
    static Band bandOutside(Band ephemeral) {
        int first = ephemeral.first() - PREFERRED_FIRST >= MIN_PREFERRED_BAND ? PREFERRED_FIRST : FIRST_UNPRIVILEGED;
        Band below = new Band(first, ephemeral.first() - 1);
        Band above = new Band(Math.max(FIRST_UNPRIVILEGED, ephemeral.last() + 1), LAST_PORT);
        return below.size() >= above.size() ? below : above;
    }
}
