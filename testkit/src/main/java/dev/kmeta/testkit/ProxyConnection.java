package dev.kmeta.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static dev.kmeta.testkit.FaultProxy.abortQuietly;
import static dev.kmeta.testkit.FaultProxy.closeQuietly;

/**
 * One connection through a {@link FaultProxy}: a client socket, an optional upstream socket (none when blackholed at
 * accept), and a pipe each way. Each pipe is a reader thread, which counts what it reads ({@link ProxyTraffic}) and
 * queues it, and a writer thread, which forwards each chunk once the proxy's latency has passed since it was read,
 * unless the proxy blackholes by then. Counters are updated before the bytes are forwarded.
 *
 * <p>Thread-safe: its own daemon threads ({@code faultproxy-<port>-<id>-...}) run it; {@link #abort()} may be
 * called from any thread.
 */
final class ProxyConnection {
    private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
    private static final int BUFFER_SIZE = 16 * 1024;

    private final FaultProxy proxy;
    private final ProxyTraffic traffic;
    private final int id;
    private final Socket client;
    private final Socket upstream;
    private final AtomicInteger openDirections = new AtomicInteger(2);
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private volatile boolean aborted;

    ProxyConnection(FaultProxy proxy, ProxyTraffic traffic, int id, Socket client, Socket upstream) {
        this.proxy = proxy;
        this.traffic = traffic;
        this.id = id;
        this.client = client;
        this.upstream = upstream;
    }

    void start() {
        try {
            client.setTcpNoDelay(true);
            if (upstream == null) {
                InputStream in = client.getInputStream();
                spawn("drain", () -> drain(in));
                return;
            }
            startPipe("c2s", client.getInputStream(), upstream, new FrameCounter(traffic::frame), null);
            startPipe("s2c", upstream.getInputStream(), client, null, traffic::toClients);
        } catch (IOException e) {
            abort();
        }
    }

    /** Resets (TCP RST) both sockets and stops the threads. */
    void abort() {
        aborted = true;
        proxy.forget(this);
        abortQuietly(client);
        abortQuietly(upstream);
        for (Thread thread : threads) {
            if (thread != Thread.currentThread()) {
                thread.interrupt();
            }
        }
    }

    /** A reader thread queues what it reads (counting frames if asked); a writer forwards it when due. */
    private void startPipe(String name, InputStream in, Socket to, FrameCounter frames, LongConsumer written)
            throws IOException {
        LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        OutputStream out = to.getOutputStream();
        spawn(name + "-read", () -> read(in, queue, frames));
        spawn(name + "-write", () -> write(queue, out, to, written));
    }

    private void spawn(String name, Runnable body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } finally {
                threads.remove(Thread.currentThread());
            }
        }, "faultproxy-" + proxy.port() + "-" + id + "-" + name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    /** Blackholed at accept: read and count, never forward. */
    private void drain(InputStream in) {
        FrameCounter frames = new FrameCounter(traffic::frame);
        byte[] buffer = new byte[BUFFER_SIZE];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                traffic.fromClients(n);
                frames.feed(buffer, 0, n);
            }
        } catch (IOException e) {
            LOG.trace("faultproxy {}-{} drain ended", proxy.port(), id, e);
        }
        abort();
    }

    private void read(InputStream in, LinkedBlockingQueue<Chunk> queue, FrameCounter frames) {
        byte[] buffer = new byte[BUFFER_SIZE];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                if (frames != null) {
                    frames.feed(buffer, 0, n);
                    traffic.fromClients(n);
                }
                if (proxy.mode() != FaultProxy.Mode.BLACKHOLE) {
                    queue.add(new Chunk(System.nanoTime(), Arrays.copyOf(buffer, n)));
                }
            }
            queue.add(Chunk.EOF);
        } catch (IOException e) {
            LOG.trace("faultproxy {}-{} read ended", proxy.port(), id, e);
            abort();
        }
    }

    private void write(LinkedBlockingQueue<Chunk> queue, OutputStream out, Socket to, LongConsumer written) {
        try {
            while (!aborted) {
                Chunk chunk = queue.take();
                if (chunk == Chunk.EOF) {
                    to.shutdownOutput();
                    directionDone();
                    return;
                }
                awaitDue(chunk.readNanos + proxy.latencyNanos());
                if (proxy.mode() == FaultProxy.Mode.BLACKHOLE) {
                    continue;
                }
                if (written != null) {
                    written.accept(chunk.bytes.length);
                }
                out.write(chunk.bytes);
                out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.trace("faultproxy {}-{} write ended", proxy.port(), id, e);
            abort();
        }
    }

    private static void awaitDue(long dueNanos) throws InterruptedException {
        long wait = dueNanos - System.nanoTime();
        while (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
            wait = dueNanos - System.nanoTime();
        }
    }

    private void directionDone() {
        if (openDirections.decrementAndGet() == 0) {
            proxy.forget(this);
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }

    /** Bytes read at a given time; {@link #EOF} marks the end of a direction. */
    private static final class Chunk {
        static final Chunk EOF = new Chunk(0, new byte[0]);
        final long readNanos;
        final byte[] bytes;

        Chunk(long readNanos, byte[] bytes) {
            this.readNanos = readNanos;
            this.bytes = bytes;
        }
    }
}
