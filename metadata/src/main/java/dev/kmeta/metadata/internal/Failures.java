package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.internal.InstallOnce;
import dev.kmeta.metadata.ConfigException;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataFatalException;
import dev.kmeta.metadata.MetadataInterruptedException;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.TooManyTopicsException;
import dev.kmeta.metadata.TopicException;

import java.lang.invoke.MethodHandles;
import java.util.List;

/**
 * How kmeta's internals make a {@link Diagnosis} and kmeta's exceptions, whose constructors are package-private so
 * that only kmeta builds them: {@code dev.kmeta.metadata} hands its one {@link Factory} over when {@link Diagnosis}
 * is initialized (the JDK's "shared secrets" pattern); nothing else can install one.
 *
 * <p>Internal: for kmeta's modules, not an API. Thread-safe: the factory is set once, during Diagnosis's class initialization, and read through a volatile.
 */
public final class Failures {
    /** What {@code dev.kmeta.metadata} lets its internals construct. */
    public interface Factory {
        /** See {@link Diagnosis}'s accessors for each argument. */
        Diagnosis diagnosis(Diagnosis.Cause cause, String topic, int partition, long budgetMs, String seen, String fix,
                            List<String> evidence, int partitionCount, String clusterId, String previousClusterId);

        /** A timeout with {@code message} and {@code diagnosis} (null for a version wait). */
        MetadataTimeoutException timeout(String message, Diagnosis diagnosis);

        /** A topic that no retry makes available. */
        TopicException topic(String topic, TopicException.Reason reason, String message, Diagnosis diagnosis);

        /** A failure no retry fixes. */
        MetadataFatalException fatal(String message, Throwable cause, Diagnosis diagnosis);

        /** The client is closed. */
        MetadataClosedException closed(String message);

        /** The waiting thread was interrupted. */
        MetadataInterruptedException interrupted(String message);

        /** Subscribing would pass {@code kmeta.metadata.max.topics}. */
        TooManyTopicsException tooManyTopics(String message);

        /** A setting kafka-clients could not use when kmeta built its network client on it. */
        ConfigException config(String key, String message, Throwable cause);
    }

    private static final InstallOnce INSTALL = new InstallOnce(Diagnosis.class,
            "only dev.kmeta.metadata.Diagnosis installs the factory, once");
    private static volatile Factory factory;

    private Failures() {
    }

    /**
     * Called once, by {@link Diagnosis}'s static initializer.
     *
     * @throws IllegalStateException when called again or from another class
     */
    public static void install(Factory f) {
        INSTALL.claim(InstallOnce.callerOfInstall());
        factory = f;
    }

    /** The factory (waits for {@link Diagnosis}'s initialization when another thread is running it). */
    public static Factory make() {
        Factory f = factory;
        if (f == null) {
            initializeDiagnosis();
            f = factory;
        }
        return f;
    }

    private static void initializeDiagnosis() {
        try {
            MethodHandles.lookup().ensureInitialized(Diagnosis.class); // its initializer installs the factory
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
