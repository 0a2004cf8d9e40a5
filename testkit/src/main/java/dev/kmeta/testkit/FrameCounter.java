package dev.kmeta.testkit;

/**
 * Splits a client's byte stream into Kafka request frames (int32 size, then the header: int16 api key, int16 api
 * version first) and reports each frame's api key and version to a listener, however the stream is cut into
 * chunks. Stops counting on a stream that is evidently not Kafka (a frame size out of range), e.g. TLS.
 *
 * <p>Not thread-safe: one counter per stream, fed by the thread reading it.
 */
final class FrameCounter {
    /** What a {@link FrameCounter} reports: one request frame's api key and version. */
    @FunctionalInterface
    interface Listener {
        void frame(short apiKey, short apiVersion);
    }

    private static final int HEADER = 8;
    private static final int MIN_FRAME = 8;
    private static final int MAX_FRAME = 256 * 1024 * 1024;
    private final Listener listener;
    private final byte[] header = new byte[HEADER];
    private int filled;
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
            int n = Math.min(HEADER - filled, end - pos);
            System.arraycopy(bytes, pos, header, filled, n);
            filled += n;
            pos += n;
            if (filled == HEADER) {
                onHeader();
            }
        }
    }

    /** True once the stream was found not to be Kafka: nothing more is counted. */
    boolean broken() {
        return broken;
    }

    private void onHeader() {
        filled = 0;
        int size = ((header[0] & 0xff) << 24) | ((header[1] & 0xff) << 16)
                | ((header[2] & 0xff) << 8) | (header[3] & 0xff);
        if (size < MIN_FRAME || size > MAX_FRAME) {
            broken = true;
            return;
        }
        listener.frame((short) (((header[4] & 0xff) << 8) | (header[5] & 0xff)),
                (short) (((header[6] & 0xff) << 8) | (header[7] & 0xff)));
        toSkip = size - (HEADER - 4L);
    }
}
