package dev.kmeta.metadata;

import dev.kmeta.metadata.internal.Failures;

import java.util.List;

/** The {@link Failures.Factory} this package hands to kmeta's internals: its package-private constructors. */
final class Construction implements Failures.Factory {
    @Override
    public Diagnosis diagnosis(Diagnosis.Cause cause, String topic, int partition, long budgetMs, String seen,
                               String fix, List<String> evidence, int partitionCount, String clusterId,
                               String previousClusterId) {
        return new Diagnosis(cause, topic, partition, budgetMs, seen, fix, evidence, partitionCount, clusterId,
                previousClusterId);
    }

    @Override
    public MetadataTimeoutException timeout(String message, Diagnosis diagnosis) {
        return new MetadataTimeoutException(message, diagnosis);
    }

    @Override
    public TopicException topic(String topic, TopicException.Reason reason, String message, Diagnosis diagnosis) {
        return new TopicException(topic, reason, message, diagnosis);
    }

    @Override
    public MetadataFatalException fatal(String message, Throwable cause, Diagnosis diagnosis) {
        return new MetadataFatalException(message, cause, diagnosis);
    }

    @Override
    public MetadataClosedException closed(String message) {
        return new MetadataClosedException(message);
    }

    @Override
    public MetadataInterruptedException interrupted(String message) {
        return new MetadataInterruptedException(message);
    }

    @Override
    public TooManyTopicsException tooManyTopics(String message) {
        return new TooManyTopicsException(message);
    }

    @Override
    public ConfigException config(String key, String message, Throwable cause) {
        return new ConfigException(key, message, cause);
    }
}
