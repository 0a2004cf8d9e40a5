package dev.kmeta.sender;

import dev.kmeta.metadata.MetadataException;
import dev.kmeta.metadata.MetadataFatalException;
import dev.kmeta.metadata.MetadataInterruptedException;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.TopicException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

import java.util.Set;

/**
 * kmeta's exceptions as the Kafka exceptions a producer's code already catches, at the producer-facing boundary.
 * Each keeps kmeta's message, and kmeta's exception as its cause, so {@code Diagnosis.from(e)} finds the diagnosis.
 * Stateless; thread-safe.
 */
final class KafkaErrors {
    private KafkaErrors() {
    }

    /** The Kafka exception for {@code e}. */
    static KafkaException toKafka(MetadataException e) {
        if (e instanceof MetadataTimeoutException) {
            return new KafkaMetadataTimeoutException((MetadataTimeoutException) e);
        }
        if (e instanceof MetadataInterruptedException) {
            return interrupted(e);
        }
        if (e instanceof TopicException) {
            return refused((TopicException) e);
        }
        if (e instanceof MetadataFatalException) {
            return fatal((MetadataFatalException) e);
        }
        return new KafkaException(e.getMessage(), e); // closed, too many topics
    }

    /** Kafka's InterruptException, which (like kmeta) leaves the thread's interrupt status set. */
    private static InterruptException interrupted(MetadataException e) {
        InterruptedException cause = new InterruptedException(e.getMessage());
        cause.initCause(e);
        return new InterruptException(e.getMessage(), cause);
    }

    private static KafkaException refused(TopicException e) {
        KafkaException k = e.reason() == TopicException.Reason.NOT_AUTHORIZED
                ? new TopicAuthorizationException(e.getMessage(), Set.of(e.topic()))
                : new InvalidTopicException(e.getMessage(), Set.of(e.topic()));
        k.initCause(e);
        return k;
    }

    /** The wire's own type where Kafka has one (SASL, TLS, unsupported version), with kmeta's diagnosed message. */
    private static KafkaException fatal(MetadataFatalException e) {
        Throwable wire = e.getCause();
        String message = e.getMessage();
        if (wire instanceof SaslAuthenticationException) {
            return new SaslAuthenticationException(message, e);
        }
        if (wire instanceof SslAuthenticationException) {
            return new SslAuthenticationException(message, e);
        }
        if (wire instanceof AuthenticationException) {
            return new AuthenticationException(message, e);
        }
        if (wire instanceof UnsupportedVersionException) {
            return new UnsupportedVersionException(message, e);
        }
        return new KafkaException(message, e);
    }
}
