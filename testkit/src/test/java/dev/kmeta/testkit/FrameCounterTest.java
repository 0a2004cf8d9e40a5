package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link FrameCounter} splits a client's stream into Kafka frames however it is chunked; {@link ProxyTraffic} counts them. */
class FrameCounterTest {

    /** A request frame: int32 size, int16 api key, int16 version, int32 correlation id, then {@code body} bytes. */
    private static byte[] frame(int apiKey, int version, int body) {
        ByteBuffer b = ByteBuffer.allocate(4 + 8 + body);
        b.putInt(8 + body).putShort((short) apiKey).putShort((short) version).putInt(42);
        return b.array();
    }

    private static byte[] stream(byte[]... frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] f : frames) {
            out.writeBytes(f);
        }
        return out.toByteArray();
    }

    @Test
    void framesAreCountedByApiKeyWithTheHighestVersionWhateverTheChunking() {
        byte[] bytes = stream(frame(18, 3, 0), frame(3, 12, 40), frame(3, 11, 1000), frame(0, 9, 5));
        for (int chunk : new int[] {1, 3, 7, 8, 13, bytes.length}) {
            ProxyTraffic traffic = new ProxyTraffic();
            FrameCounter counter = new FrameCounter(traffic::frame);
            for (int pos = 0; pos < bytes.length; pos += chunk) {
                counter.feed(bytes, pos, Math.min(chunk, bytes.length - pos));
            }
            assertEquals(Map.of((short) 0, 1L, (short) 3, 2L, (short) 18, 1L), traffic.requestCounts(),
                    "chunks of " + chunk);
            assertEquals(12, traffic.maxRequestVersion((short) 3));
            assertEquals(-1, traffic.maxRequestVersion((short) 1));
            assertFalse(counter.broken());
        }
    }

    @Test
    void aStreamThatIsNotKafkaStopsTheCounting() {
        ProxyTraffic traffic = new ProxyTraffic();
        FrameCounter counter = new FrameCounter(traffic::frame);
        byte[] tlsHello = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc};
        counter.feed(tlsHello, 0, tlsHello.length);
        byte[] after = frame(3, 12, 0);
        counter.feed(after, 0, after.length);
        assertTrue(counter.broken());
        assertEquals(0, traffic.requestCount((short) 3));
    }

    @Test
    void aFrameSmallerThanItsHeaderIsNotKafka() {
        FrameCounter counter = new FrameCounter((key, version, clientId) -> { });
        byte[] tiny = ByteBuffer.allocate(8).putInt(7).putShort((short) 3).putShort((short) 1).array();
        counter.feed(tiny, 0, tiny.length);
        assertTrue(counter.broken());
    }

    @Test
    void resetZeroesEveryCounter() {
        ProxyTraffic traffic = new ProxyTraffic();
        traffic.accepted();
        traffic.fromClients(10);
        traffic.toClients(20);
        traffic.frame((short) 3, (short) 12, "c");
        traffic.reset();
        assertEquals(0, traffic.acceptedConnections());
        assertEquals(0, traffic.bytesFromClients());
        assertEquals(0, traffic.bytesToClients());
        assertEquals(Map.of(), traffic.requestCounts());
        assertEquals(-1, traffic.maxRequestVersion((short) 3));
    }

    /** A request frame with header v1+: size, api key, version, correlation id, client id, then {@code body} bytes. */
    private static byte[] frame(int apiKey, int version, String clientId, int body) {
        byte[] id = clientId == null ? new byte[0] : clientId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + 10 + id.length + body);
        b.putInt(10 + id.length + body).putShort((short) apiKey).putShort((short) version).putInt(7)
                .putShort((short) (clientId == null ? -1 : id.length)).put(id);
        return b.array();
    }

    @Test
    void framesAreCountedPerClientIdWhateverTheChunking() {
        byte[] bytes = stream(frame(3, 12, "app-StreamThread-1-producer", 30), frame(3, 12, "app-admin", 0),
                frame(0, 9, "app-admin", 5), frame(3, 12, null, 3), frame(3, 12, "app-StreamThread-1-producer", 0),
                frame(18, 3, 0));
        for (int chunk : new int[] {1, 2, 5, 13, 14, 15, bytes.length}) {
            ProxyTraffic traffic = new ProxyTraffic();
            FrameCounter counter = new FrameCounter(traffic::frame);
            for (int pos = 0; pos < bytes.length; pos += chunk) {
                counter.feed(bytes, pos, Math.min(chunk, bytes.length - pos));
            }
            assertEquals(Map.of("app-StreamThread-1-producer", 2L, "app-admin", 1L, "", 1L),
                    traffic.requestCountsByClient((short) 3), "chunks of " + chunk);
            assertEquals(Map.of("app-admin", 1L), traffic.requestCountsByClient((short) 0));
            assertEquals(Map.of((short) 0, 1L, (short) 3, 4L, (short) 18, 1L), traffic.requestCounts());
            assertFalse(counter.broken());
        }
    }
}
