package dev.kmeta.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on 127.0.0.1 (ephemeral port) in front of one loopback target, whose behaviour can be switched
 * at runtime to inject network faults: {@link #pass()}, {@link #refuse()}, {@link #blackhole()},
 * {@link #resetAll()}, {@link #latencyMs(long)}.
 *
 * <p>It counts accepted connections, bytes each way and the Kafka request frames the clients sent, by api key
 * ({@link #requestCount(short)}; MetadataRequest is api key 3). A Kafka frame is a 4-byte big-endian size
 * followed by a request header whose first two bytes are the api key; frames are counted as the client sends
 * them, whether forwarded or swallowed by a blackhole. Counting is meaningless on TLS connections. Counters
 * are updated before the bytes are forwarded: once a peer has received something, the counters include it.
 *
 * <p>A proxy may be created without a target ({@link #create()}): until {@link #retarget(String, int)} it
 * resets every connection it accepts. All threads are daemon threads named {@code faultproxy-<port>-...}.
 *
 * <p>This class owns the listening socket and the mode; each connection is pumped by a {@link ProxyConnection}, the
 * counters are a {@link ProxyTraffic}, fed by a {@link FrameCounter} per client stream.
 *
 * <p>Thread-safe: every method may be called from any thread, at any time; mode switches apply at once to new
 * connections and, as documented per mode, to existing ones.
 */
public final class FaultProxy implements AutoCloseable {

    /** What the proxy currently does with connections. */
    public enum Mode {
        /** Forward both ways (after the configured latency). */
        PASS,
        /** Do not accept: connection attempts fail with "connection refused"; existing connections live on. */
        REFUSE,
        /** Accept and read, never forward, never answer; existing connections stop forwarding too. */
        BLACKHOLE
    }

    private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int CONNECT_TIMEOUT_MS = 2_000;

    private final Object lock = new Object();
    private final int port;
    private final Set<ProxyConnection> links = ConcurrentHashMap.newKeySet();
    private final ProxyTraffic traffic = new ProxyTraffic();
    private final AtomicInteger linkIds = new AtomicInteger();

    private volatile Mode mode = Mode.PASS;
    private volatile long latencyNanos;
    private volatile InetSocketAddress target;
    private volatile boolean closed;
    // Guarded by lock: the listening socket (PASS, BLACKHOLE) or the port holder (REFUSE).
    private ServerSocket listener;
    private Thread acceptor;
    private Socket portHolder;

    private FaultProxy(InetSocketAddress target) {
        this.target = target;
        this.listener = bindListener(0);
        this.port = listener.getLocalPort();
        this.acceptor = startAcceptor(listener);
        LOG.debug("faultproxy {} started, target {}", port, target);
    }

    /**
     * Starts a proxy in {@link Mode#PASS} in front of a loopback target.
     *
     * @throws IllegalArgumentException if the target is not a loopback address
     */
    public static FaultProxy to(String host, int port) {
        return new FaultProxy(loopbackTarget(host, port));
    }

    /** Starts a proxy in front of a loopback target; see {@link #to(String, int)}. */
    public static FaultProxy to(InetSocketAddress target) {
        return to(target.getHostString(), target.getPort());
    }

    /** Starts a proxy with no target yet: it resets every connection until {@link #retarget(String, int)}. */
    public static FaultProxy create() {
        return new FaultProxy(null);
    }

    /** The local port clients connect to. */
    public int port() {
        return port;
    }

    /** {@code 127.0.0.1:<port>}, for {@code bootstrap.servers}. */
    public String address() {
        return LOOPBACK.getHostAddress() + ":" + port;
    }

    /** The current target, or null if none was set. */
    public InetSocketAddress target() {
        return target;
    }

    /** The current mode. */
    public Mode mode() {
        return mode;
    }

    /** Points new connections at another loopback target; existing connections keep theirs. */
    public FaultProxy retarget(String host, int port) {
        this.target = loopbackTarget(host, port);
        LOG.debug("faultproxy {} retargeted to {}", this.port, target);
        return this;
    }

    /**
     * Forwards both ways again, for new and existing connections.
     *
     * @throws java.io.UncheckedIOException after {@link #refuse()}, if the port could not be held meanwhile
     *     and another process took it (not seen in practice: the port is held by a bound, non-listening socket)
     */
    public FaultProxy pass() {
        return switchTo(Mode.PASS);
    }

    /** New connection attempts are refused (nothing listens on the port); existing connections live on. */
    public FaultProxy refuse() {
        return switchTo(Mode.REFUSE);
    }

    /** Accepts and reads but never forwards or answers; existing connections stop forwarding too (data is lost). */
    public FaultProxy blackhole() {
        return switchTo(Mode.BLACKHOLE);
    }

    /** Delays forwarding of every chunk, both ways, by this many milliseconds (0 = none). */
    public FaultProxy latencyMs(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("latency must be >= 0: " + millis);
        }
        this.latencyNanos = TimeUnit.MILLISECONDS.toNanos(millis);
        return this;
    }

    /** Resets (TCP RST) every open connection, both the client's and the target's side. The mode is unchanged. */
    public FaultProxy resetAll() {
        for (ProxyConnection link : new ArrayList<>(links)) {
            link.abort();
        }
        return this;
    }

    /** Connections accepted since start (or {@link #resetCounters()}). */
    public long acceptedConnections() {
        return traffic.acceptedConnections();
    }

    /** Connections open now. */
    public int openConnections() {
        return links.size();
    }

    /** Bytes received from clients (forwarded or not). */
    public long bytesFromClients() {
        return traffic.bytesFromClients();
    }

    /** Bytes forwarded from targets to clients. */
    public long bytesToClients() {
        return traffic.bytesToClients();
    }

    /** Kafka request frames with this api key that clients sent through this proxy. */
    public long requestCount(short apiKey) {
        return traffic.requestCount(apiKey);
    }

    /** All request frame counts by api key (a copy, sorted by key). */
    public Map<Short, Long> requestCounts() {
        return traffic.requestCounts();
    }

    /**
     * Request frames of {@code apiKey} clients sent through this proxy since the last reset, per client id (the
     * request header's {@code client.id}; "" for none): who asked how often. A sorted copy.
     */
    public Map<String, Long> requestCountsByClient(short apiKey) {
        return traffic.requestCountsByClient(apiKey);
    }

    /**
     * The highest version of requests with this api key that clients sent through this proxy (what client and
     * broker negotiated through ApiVersions), or -1 if none was sent.
     */
    public short maxRequestVersion(short apiKey) {
        return traffic.maxRequestVersion(apiKey);
    }

    /** Zeroes every counter (frames already half-parsed are still counted when complete). */
    public void resetCounters() {
        traffic.reset();
    }

    /** Stops accepting, resets every connection and releases the port. Idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            closeListener();
            closeQuietly(portHolder);
            portHolder = null;
        }
        resetAll();
        LOG.debug("faultproxy {} closed", port);
    }

    @Override
    public String toString() {
        return "FaultProxy[" + address() + " -> " + target + ", " + mode + "]";
    }

    /** The configured latency, for connections' writers. */
    long latencyNanos() {
        return latencyNanos;
    }

    /** A connection that ended or was reset: no longer open. */
    void forget(ProxyConnection link) {
        links.remove(link);
    }

    private FaultProxy switchTo(Mode next) {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("faultproxy " + port + " is closed");
            }
            if (next == Mode.REFUSE && listener != null) {
                closeListener();
                portHolder = holdPort(port);
            } else if (next != Mode.REFUSE && listener == null) {
                closeQuietly(portHolder);
                portHolder = null;
                listener = bindListener(port);
                acceptor = startAcceptor(listener);
            }
            mode = next;
        }
        LOG.debug("faultproxy {} now {}", port, next);
        return this;
    }

    private Thread startAcceptor(ServerSocket server) {
        Thread thread = new Thread(() -> acceptLoop(server), "faultproxy-" + server.getLocalPort() + "-accept");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /**
     * Closes the listening socket and waits for the acceptor to leave accept(): only then is the socket really
     * closed (a thread blocked in accept() keeps it listening), so connection attempts are refused from here on.
     */
    private void closeListener() {
        closeQuietly(listener);
        listener = null;
        Thread thread = acceptor;
        acceptor = null;
        if (thread != null && thread != Thread.currentThread()) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void acceptLoop(ServerSocket server) {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (server.isClosed()) {
                    abortQuietly(client);
                    return;
                }
                traffic.accepted();
                onAccept(client);
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.warn("faultproxy {}: accept failed", port, e);
                }
            }
        }
    }

    private void onAccept(Socket client) {
        InetSocketAddress to = target;
        if (mode == Mode.BLACKHOLE) {
            startLink(client, null);
        } else if (to == null) {
            abortQuietly(client);
        } else {
            connectAndLink(client, to);
        }
    }

    private void connectAndLink(Socket client, InetSocketAddress to) {
        Socket upstream = new Socket();
        try {
            upstream.setTcpNoDelay(true);
            upstream.connect(to, CONNECT_TIMEOUT_MS);
        } catch (IOException e) {
            LOG.debug("faultproxy {}: target {} unreachable ({}), resetting the client", port, to, e.toString());
            abortQuietly(upstream);
            abortQuietly(client);
            return;
        }
        LOG.debug("faultproxy {}: client {} -> target {} (via local port {})", port, client.getPort(), to,
                upstream.getLocalPort());
        startLink(client, upstream);
    }

    private void startLink(Socket client, Socket upstream) {
        ProxyConnection link = new ProxyConnection(this, traffic, linkIds.incrementAndGet(), client, upstream);
        links.add(link);
        if (closed) {
            link.abort();
            return;
        }
        link.start();
    }

    private static ServerSocket bindListener(int port) {
        try {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(LOOPBACK, port), 128);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("faultproxy cannot listen on 127.0.0.1:" + port, e);
        }
    }

    /** Binds (without listening) so the port stays ours while connection attempts are refused. */
    private static Socket holdPort(int port) {
        Socket holder = new Socket();
        try {
            holder.setReuseAddress(true);
            holder.bind(new InetSocketAddress(LOOPBACK, port));
            return holder;
        } catch (IOException e) {
            closeQuietly(holder);
            LOG.debug("faultproxy {}: cannot hold the port while refusing ({})", port, e.toString());
            return null;
        }
    }

    private static InetSocketAddress loopbackTarget(String host, int port) {
        Objects.requireNonNull(host, "host");
        try {
            InetAddress address = InetAddress.getByName(host);
            if (!address.isLoopbackAddress()) {
                throw new IllegalArgumentException("FaultProxy targets loopback addresses only, not " + host);
            }
            return new InetSocketAddress(address, port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown host " + host, e);
        }
    }

    static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.trace("close failed", e);
        }
    }

    /** Closes with SO_LINGER 0, which sends a TCP RST instead of a FIN. */
    static void abortQuietly(Socket socket) {
        if (socket == null) {
            return;
        }
        try {
            if (!socket.isClosed()) {
                socket.setSoLinger(true, 0);
            }
        } catch (SocketException e) {
            LOG.trace("setSoLinger failed", e);
        }
        closeQuietly(socket);
    }
}
