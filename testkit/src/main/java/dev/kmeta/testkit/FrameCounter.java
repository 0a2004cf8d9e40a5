package dev.kmeta.testkit;

import java.nio.charset.StandardCharsets;

/**
 * Splits a client's byte stream into Kafka request frames (int32 size, then the header: int16 api key, int16 api
 * version, int32 correlation id, nullable string client id) and reports each frame's api key, version and client id
 * to a listener, however the stream is cut into chunks. Stops counting on a stream that is evidently not Kafka (a
 * frame size out of range), e.g. TLS.
 *
 * <p>Not thread-safe: one counter per stream, fed by the thread reading it.
 */
final class FrameCounter {
    /** What a {@link FrameCounter} reports: one request frame's api key, version and client id. */
    @FunctionalInterface
    interface Listener {
        /** @param clientId the header's client id; null when the frame carries none (or none readable) */
        void frame(short apiKey, short apiVersion, String clientId);
    }

    /** int32 size, int16 api key, int16 api version. */
    private static final int KEY_AND_VERSION = 8;
    /** Then int32 correlation id and the client id's int16 length. */
    private static final int ID_LENGTH_END = KEY_AND_VERSION + 6;
    /** Longer client ids are not read (reported as null). */
    private static final int MAX_CLIENT_ID = 512;
    private static final int MIN_FRAME = 8;
    private static final int MAX_FRAME = 256 * 1024 * 1024;
    private final Listener listener;
    private final byte[] header = new byte[ID_LENGTH_END + MAX_CLIENT_ID];
    /** How many header bytes the current step reads, and how many it has. */
    private int want = KEY_AND_VERSION;
    private int filled;
    private int size;
    private short apiKey;
    private short apiVersion;
    private long toSkip;
    private boolean broken;

    FrameCounter(Listener listener) {
        this.listener = listener;
    }

    /** The next bytes of the stream. */
    void feed(byte[] bytes, int offset, int length) {
        int pos = offset;
        int end = offset + length;
        while (pos < end && !broken) {
            if (toSkip > 0) {
                int n = (int) Math.min(toSkip, end - pos);
                toSkip -= n;
                pos += n;
                continue;
            }
            int n = Math.min(want - filled, end - pos);
            System.arraycopy(bytes, pos, header, filled, n);
            filled += n;
            pos += n;
            if (filled == want) {
                onHeaderPart();
            }
        }
    }

    /** True once the stream was found not to be Kafka: nothing more is counted. */
    boolean broken() {
        return broken;
    }

    private void onHeaderPart() {
        if (want == KEY_AND_VERSION) {
            size = readInt(0);
            if (size < MIN_FRAME || size > MAX_FRAME) {
                broken = true;
                return;
            }
            apiKey = readShort(4);
            apiVersion = readShort(6);
            if (4L + size < ID_LENGTH_END) { // no room for a client id
                report(null);
            } else {
                want = ID_LENGTH_END;
            }
        } else if (want == ID_LENGTH_END) {
            int idLength = readShort(KEY_AND_VERSION + 4);
            if (idLength <= 0 || idLength > MAX_CLIENT_ID || ID_LENGTH_END + idLength > 4L + size) {
                report(idLength == 0 ? "" : null);
            } else {
                want = ID_LENGTH_END + idLength;
            }
        } else {
            report(new String(header, ID_LENGTH_END, want - ID_LENGTH_END, StandardCharsets.UTF_8));
        }
    }

    private void report(String clientId) {
        listener.frame(apiKey, apiVersion, clientId);
        toSkip = 4L + size - filled; // the rest of the frame
        filled = 0;
        want = KEY_AND_VERSION;
    }

    private int readInt(int at) {
        return ((header[at] & 0xff) << 24) | ((header[at + 1] & 0xff) << 16) | ((header[at + 2] & 0xff) << 8)
                | (header[at + 3] & 0xff);
    }

    private short readShort(int at) {
        return (short) (((header[at] & 0xff) << 8) | (header[at + 1] & 0xff));
    }
}
