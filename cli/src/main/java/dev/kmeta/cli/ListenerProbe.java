package dev.kmeta.cli;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What a listener speaks, asked the doctor's way: one clear-text Kafka request, a SaslHandshake (v1, which every
 * broker since 1.0 answers, KRaft ones included), on a fresh TCP connection. A PLAINTEXT listener answers it with
 * ILLEGAL_SASL_STATE and no mechanisms; a SASL_PLAINTEXT listener with its enabled mechanisms; a TLS listener (SSL,
 * SASL_SSL) cannot answer clear text at all and closes the connection. So the answer tells a security.protocol that
 * does not fit the port from a wrong password or an untrusted certificate - which kafka-clients reports alike
 * ("authentication failed", or a connection that keeps dropping). The request authenticates nothing and asks for
 * nothing; the connection is closed at once. Stateless and thread-safe.
 */
final class ListenerProbe {
    private static final short SASL_HANDSHAKE = 17;
    private static final short VERSION = 1;
    private static final int CORRELATION_ID = 0x6b6d6574; // "kmet"
    private static final short NONE = 0;
    private static final short UNSUPPORTED_SASL_MECHANISM = 33;
    private static final short ILLEGAL_SASL_STATE = 34;
    /** A SaslHandshake answer is a few dozen bytes; anything much larger is not one. */
    private static final int MAX_ANSWER = 64 * 1024;

    /** What the listener speaks. */
    enum Kind {
        /** Clear-text Kafka without SASL: it refused the SASL handshake (ILLEGAL_SASL_STATE, no mechanisms). */
        PLAINTEXT,
        /** Clear-text Kafka with SASL (SASL_PLAINTEXT): it answered the handshake with its mechanisms. */
        SASL_PLAINTEXT,
        /** No clear-text Kafka answer: the connection closed, or the bytes were not one (a TLS listener, say). */
        NO_CLEAR_TEXT_ANSWER,
        /** The probe could not tell (no connection, no answer in time). */
        UNKNOWN
    }

    /**
     * The probe's finding.
     *
     * @param kind       what the listener speaks
     * @param mechanisms the SASL mechanisms it enables (SASL_PLAINTEXT), else empty
     * @param detail     what was seen, one line
     */
    record Result(Kind kind, List<String> mechanisms, String detail) {
        Result {
            mechanisms = List.copyOf(mechanisms);
        }
    }

    private ListenerProbe() {
    }

    /** Asks {@code address} with mechanism {@code mechanism}, waiting at most {@code timeoutMs} for each step. */
    static Result probe(InetSocketAddress address, String mechanism, int timeoutMs) {
        try (Socket socket = new Socket()) {
            socket.connect(address, timeoutMs);
            socket.setSoTimeout(timeoutMs);
            send(socket.getOutputStream(), mechanism);
            return read(new DataInputStream(socket.getInputStream()));
        } catch (SocketTimeoutException e) {
            return new Result(Kind.UNKNOWN, List.of(), "no answer within " + timeoutMs + " ms");
        } catch (EOFException e) {
            return new Result(Kind.NO_CLEAR_TEXT_ANSWER, List.of(), "it closed the connection without a Kafka "
                    + "answer to a clear-text request");
        } catch (IOException e) {
            String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            return message.toLowerCase(java.util.Locale.ROOT).contains("reset")
                    ? new Result(Kind.NO_CLEAR_TEXT_ANSWER, List.of(), "it reset the connection on a clear-text "
                    + "Kafka request") : new Result(Kind.UNKNOWN, List.of(), "cannot ask it: " + message);
        }
    }

    private static void send(OutputStream stream, String mechanism) throws IOException {
        byte[] clientId = "kmeta-doctor-probe".getBytes(StandardCharsets.UTF_8);
        byte[] mech = mechanism.getBytes(StandardCharsets.UTF_8);
        DataOutputStream out = new DataOutputStream(stream);
        out.writeInt(2 + 2 + 4 + 2 + clientId.length + 2 + mech.length);
        out.writeShort(SASL_HANDSHAKE);          // request header v1
        out.writeShort(VERSION);
        out.writeInt(CORRELATION_ID);
        out.writeShort(clientId.length);
        out.write(clientId);
        out.writeShort(mech.length);             // SaslHandshakeRequest v1: mechanism
        out.write(mech);
        out.flush();
    }

    private static Result read(DataInputStream in) throws IOException {
        int size = in.readInt();
        if (size < 10 || size > MAX_ANSWER) {
            return notKafka("an answer of " + size + " bytes");
        }
        byte[] body = new byte[size];
        in.readFully(body);
        DataInputStream answer = new DataInputStream(new java.io.ByteArrayInputStream(body));
        if (answer.readInt() != CORRELATION_ID) {       // response header v0
            return notKafka("an answer to another request");
        }
        short error = answer.readShort();
        int count = answer.readInt();
        if (count < 0 || count > 100) {
            return notKafka("an answer with " + count + " mechanisms");
        }
        List<String> mechanisms = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] name = new byte[answer.readUnsignedShort()];
            answer.readFully(name);
            mechanisms.add(new String(name, StandardCharsets.UTF_8));
        }
        if (error == ILLEGAL_SASL_STATE && mechanisms.isEmpty()) {
            return new Result(Kind.PLAINTEXT, mechanisms, "it answered a clear-text SASL handshake with "
                    + "ILLEGAL_SASL_STATE and no mechanisms: a PLAINTEXT listener");
        }
        if (error == NONE || error == UNSUPPORTED_SASL_MECHANISM) {
            return new Result(Kind.SASL_PLAINTEXT, mechanisms, "it answered a clear-text SASL handshake with "
                    + "mechanisms " + mechanisms + ": a SASL_PLAINTEXT listener");
        }
        return new Result(Kind.UNKNOWN, mechanisms, "it answered a SASL handshake with error code " + error);
    }

    private static Result notKafka(String what) {
        return new Result(Kind.NO_CLEAR_TEXT_ANSWER, List.of(), "it sent " + what + ", not a Kafka answer");
    }
}
