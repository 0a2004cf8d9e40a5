package dev.kmeta.sender.internal;

import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.IllegalSaslStateException;

/**
 * What the sender says of an authentication failure the client reported: plainly, so that a diagnosis names the
 * real problem. Stateless and thread-safe.
 */
final class AuthFailures {
    private AuthFailures() {
    }

    /**
     * A broker answers a SASL handshake on a listener without SASL (PLAINTEXT) with ILLEGAL_SASL_STATE and no
     * mechanisms, which kafka-clients reports as "Unexpected handshake request with client mechanism X, enabled
     * mechanisms are []": said plainly, so that the diagnosis does not read as a wrong password (the credentials were
     * never checked). Any other failure is returned as it is.
     */
    static AuthenticationException notSasl(AuthenticationException failure, String securityProtocol) {
        if (failure instanceof IllegalSaslStateException && failure.getMessage() != null
                && failure.getMessage().endsWith("enabled mechanisms are []")) {
            return new IllegalSaslStateException("the listener does not speak SASL (security.protocol="
                    + securityProtocol + "): it answered the SASL handshake with ILLEGAL_SASL_STATE and no "
                    + "mechanisms, as a PLAINTEXT listener does; the user and password were never checked ("
                    + failure.getMessage() + ")", failure);
        }
        return failure;
    }

    /**
     * The innermost message: for TLS it names the real problem ("unable to find valid certification path"). A
     * certificate exception's message alone can be only a date ("NotAfter: ..."), so its type goes first
     * ("CertificateExpiredException: NotAfter: ...").
     */
    static String rootMessage(Throwable t) {
        String message = t.getMessage();
        for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null) {
                message = c instanceof java.security.cert.CertificateException
                        ? c.getClass().getSimpleName() + ": " + c.getMessage() : c.getMessage();
            }
        }
        return message;
    }
}
