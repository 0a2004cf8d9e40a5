package dev.kmeta.sender.matrix;

import dev.kmeta.sender.ItSupport;
import dev.kmeta.sender.KafkaMetadata;
import org.apache.kafka.common.network.KafkaChannel;
import org.apache.kafka.common.network.Selector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a closed client could leave behind, looked up where the operating system and kafka-clients keep it: sockets of
 * this process ({@code /proc/self/fd} links matched with {@code /proc/net/tcp[6]}), the sockets a client's
 * {@link Selector} holds, and {@code kmeta-*} threads.
 *
 * <p>Stateless and thread-safe.
 */
final class Leaks {
    private static final String LISTEN = "0A";

    private Leaks() {
    }

    /** Live threads kmeta clients made ({@code kmeta-...}), leaving out the testkit's own ({@code kmeta-testkit-...}). */
    static List<String> kmetaThreads() {
        return ItSupport.kmetaThreads();
    }

    /** True while the sender thread of this client runs. */
    static boolean senderThreadAlive(KafkaMetadata client) {
        return ItSupport.senderThreadAlive(client.config().clientId());
    }

    /**
     * Open TCP sockets of this process connected to one of {@code remotePorts} on loopback ({@code local -> remote},
     * listening sockets left out). Only clients connect to the brokers' CLIENT ports and to the proxies: the brokers
     * and the Admin client use other listeners.
     */
    static List<String> socketsTo(Collection<Integer> remotePorts) {
        Set<String> inodes = socketInodes();
        List<String> found = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : lines(table)) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 10 || !f[0].endsWith(":") || LISTEN.equals(f[3]) || !inodes.contains(f[9])) {
                    continue;
                }
                int remotePort = port(f[2]);
                if (remotePorts.contains(remotePort)) {
                    found.add(port(f[1]) + " -> " + remotePort + " (state " + f[3] + ", inode " + f[9] + ")");
                }
            }
        }
        return found;
    }

    private static Set<String> socketInodes() {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Paths.get("/proc/self/fd"))) {
            fds.forEach(fd -> {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException gone) {
                    // closed while listing
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return inodes;
    }

    private static List<String> lines(String file) {
        try {
            return Files.readAllLines(Paths.get(file));
        } catch (IOException e) {
            return List.of(); // no IPv6 table
        }
    }

    private static int port(String hexAddress) {
        return Integer.parseInt(hexAddress.substring(hexAddress.lastIndexOf(':') + 1), 16);
    }

    /**
     * The sockets a client's kafka-clients {@link Selector} holds now. Read by reflection (KafkaMetadata -> SenderCore
     * -> SenderLoop -> NetworkClient -> Selector): the only way to tell one client's sockets from another's on the
     * same proxies. Test code only; a change of those private fields fails the matrix loudly, never silently.
     */
    static List<SocketChannel> selectorSockets(KafkaMetadata client) {
        Selector selector = selector(client);
        List<SocketChannel> sockets = new ArrayList<>();
        for (KafkaChannel channel : selector.channels()) {
            sockets.add((SocketChannel) channel.selectionKey().channel());
        }
        return sockets;
    }

    /** Channels the client's Selector still holds (after close: none). */
    static int selectorChannels(KafkaMetadata client) {
        return selector(client).channels().size();
    }

    private static Selector selector(KafkaMetadata client) {
        Object core = field(client, "core");
        Object loop = field(core, "loop");
        Object networkClient = field(loop, "client");
        return (Selector) field(networkClient, "selector");
    }

    private static Object field(Object owner, String name) {
        for (Class<?> c = owner.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(owner);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            } catch (IllegalAccessException e) {
                throw new AssertionError("cannot read " + c.getName() + "." + name, e);
            }
        }
        throw new AssertionError("no field " + name + " in " + owner.getClass().getName()
                + ": the matrix's view of the sender's internals is out of date");
    }
}
