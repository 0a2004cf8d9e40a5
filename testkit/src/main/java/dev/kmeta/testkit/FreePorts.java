package dev.kmeta.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Picks free loopback ports by binding port 0 and closing. There is a small window in which another process
 * may take such a port; callers that must be race-free bind port 0 themselves and read the port back.
 */
final class FreePorts {

    private FreePorts() {
    }

    /** {@code count} distinct ports that were free a moment ago. */
    static int[] pick(int count) {
        List<ServerSocket> sockets = new ArrayList<>(count);
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket();
                sockets.add(socket);
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free loopback port", e);
        } finally {
            sockets.forEach(FaultProxy::closeQuietly);
        }
    }
}
