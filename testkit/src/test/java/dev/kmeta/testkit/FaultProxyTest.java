package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** FaultProxy's modes and counters against a loopback echo server. */
class FaultProxyTest {

    private static final Duration BOUND = Duration.ofSeconds(5);
    private static final int READ_TIMEOUT_MS = 3_000;

    private EchoServer echo;
    private FaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new EchoServer();
        proxy = FaultProxy.to(echo.address());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void passForwardsBothWaysAndCountsBytes() throws IOException {
        try (Socket socket = connect()) {
            assertEquals("hello", roundTrip(socket, "hello"));
        }
        assertEquals(1, proxy.acceptedConnections());
        assertEquals(5, proxy.bytesFromClients());
        assertEquals(5, proxy.bytesToClients());
        assertTrue(proxy.address().startsWith("127.0.0.1:"));
    }

    @Test
    void latencyDelaysEachDirection() throws IOException {
        proxy.latencyMs(150);
        try (Socket socket = connect()) {
            long begin = System.nanoTime();
            assertEquals("slow", roundTrip(socket, "slow"));
            long millis = (System.nanoTime() - begin) / 1_000_000;
            assertTrue(millis >= 300, "a round trip through 150 ms each way took " + millis + " ms");
            proxy.latencyMs(0);
            assertEquals("fast", roundTrip(socket, "fast"));
        }
    }

    @Test
    void refuseRefusesNewConnectionsUntilPass() throws IOException {
        try (Socket existing = connect()) {
            assertEquals("first", roundTrip(existing, "first"), "accepted (not just queued) before refuse()");
            proxy.refuse();
            assertEquals(FaultProxy.Mode.REFUSE, proxy.mode());
            assertThrows(ConnectException.class, this::connect);
            assertEquals("still", roundTrip(existing, "still"), "existing connections live on");
        }
        proxy.pass();
        try (Socket socket = connect()) {
            assertEquals("back", roundTrip(socket, "back"));
        }
    }

    @Test
    void blackholeSwallowsNewAndExistingConnections() throws IOException {
        try (Socket existing = connect()) {
            assertEquals("before", roundTrip(existing, "before"));
            proxy.blackhole();
            existing.setSoTimeout(300);
            send(existing, "lost");
            assertThrows(SocketTimeoutException.class, () -> existing.getInputStream().read());
        }
        try (Socket fresh = connect()) {
            fresh.setSoTimeout(300);
            send(fresh, "void");
            assertThrows(SocketTimeoutException.class, () -> fresh.getInputStream().read());
            Awaitility.await().atMost(BOUND).until(proxy::bytesFromClients, n -> n == "before".length() + 8);
        }
    }

    @Test
    void resetAllResetsOpenConnections() throws IOException {
        try (Socket socket = connect()) {
            assertEquals("x", roundTrip(socket, "x"));
            proxy.resetAll();
            assertThrows(SocketException.class, () -> {
                InputStream in = socket.getInputStream();
                in.read();
            });
            Awaitility.await().atMost(BOUND).until(proxy::openConnections, n -> n == 0);
        }
        try (Socket socket = connect()) {
            assertEquals("new", roundTrip(socket, "new"), "new connections still pass");
        }
    }

    @Test
    void countsKafkaFramesByApiKeyAcrossChunkBoundaries() throws IOException {
        byte[] frames = concat(frame((short) 3, 20), frame((short) 18, 8), frame((short) 3, 300), frame((short) 0, 9));
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            for (int i = 0; i < frames.length; i += 7) {
                out.write(frames, i, Math.min(7, frames.length - i));
                out.flush();
            }
            byte[] echoed = socket.getInputStream().readNBytes(frames.length);
            assertArrayEquals(frames, echoed);
        }
        assertEquals(2, proxy.requestCount((short) 3));
        assertEquals(1, proxy.requestCount((short) 18));
        assertEquals(Map.of((short) 0, 1L, (short) 3, 2L, (short) 18, 1L), proxy.requestCounts());
        proxy.resetCounters();
        assertEquals(0, proxy.requestCount((short) 3));
    }

    @Test
    void retargetPointsNewConnectionsElsewhere() throws IOException {
        try (EchoServer other = new EchoServer()) {
            proxy.retarget("127.0.0.1", other.port());
            assertEquals(other.port(), proxy.target().getPort());
            try (Socket socket = connect()) {
                assertEquals("there", roundTrip(socket, "there"));
            }
        }
    }

    @Test
    void aProxyWithoutTargetOrWithADeadTargetResetsClients() throws IOException {
        try (FaultProxy empty = FaultProxy.create()) {
            assertConnectionReset(empty.port());
            empty.retarget("127.0.0.1", FreePorts.next());
            assertConnectionReset(empty.port());
        }
    }

    private static void assertConnectionReset(int port) {
        assertThrows(SocketException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
                socket.setSoTimeout(READ_TIMEOUT_MS);
                if (socket.getInputStream().read() < 0) {
                    throw new SocketException("closed instead of reset");
                }
            }
        });
    }

    @Test
    void targetsMustBeLoopback() {
        assertThrows(IllegalArgumentException.class, () -> FaultProxy.to("192.0.2.1", 9092));
        assertThrows(IllegalArgumentException.class, () -> proxy.retarget("192.0.2.1", 9092));
    }

    @Test
    void closeReleasesThePortAndTheThreads() throws IOException {
        try (Socket socket = connect()) {
            assertEquals("bye", roundTrip(socket, "bye"));
            proxy.close();
            assertThrows(ConnectException.class, this::connect);
            String prefix = "faultproxy-" + proxy.port() + "-";
            Awaitility.await().atMost(BOUND).until(() -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().startsWith(prefix)));
            assertThrows(IllegalStateException.class, proxy::pass);
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), proxy.port()), 2_000);
            socket.setSoTimeout(READ_TIMEOUT_MS);
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String roundTrip(Socket socket, String text) throws IOException {
        send(socket, text);
        byte[] answer = socket.getInputStream().readNBytes(text.length());
        return new String(answer, StandardCharsets.UTF_8);
    }

    /** A Kafka-shaped frame: int32 size, int16 api key, then filler (size counts everything after itself). */
    private static byte[] frame(short apiKey, int size) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(size);
        out.writeShort(apiKey);
        out.write(new byte[size - 2]);
        return bytes.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        for (byte[] part : parts) {
            bytes.writeBytes(part);
        }
        return bytes.toByteArray();
    }
}
