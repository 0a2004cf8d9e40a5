package dev.kmeta.cluster.internal;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The guard of a once-per-JVM internal hook ({@link TopicUsage}, {@link OwnedPartitions}, metadata's
 * {@code Failures}): the first {@link #claim} by the named installer wins, any other call throws. Lock-free; the hook
 * itself stays in the owner's volatile field, so readers pay nothing for the guard.
 *
 * <p>Internal: for kmeta's modules, not an API. Thread-safe.
 */
public final class InstallOnce {
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final Class<?> installer;
    private final String refusal;

    /**
     * @param installer the only class allowed to install, or null for any
     * @param refusal   the message of the IllegalStateException a refused claim throws
     */
    public InstallOnce(Class<?> installer, String refusal) {
        this.installer = installer;
        this.refusal = refusal;
    }

    /**
     * Claims the hook for {@code caller}.
     *
     * @throws IllegalStateException when claimed before, or {@code caller} is not the installer
     */
    public void claim(Class<?> caller) {
        if ((installer != null && caller != installer) || !claimed.compareAndSet(false, true)) {
            throw new IllegalStateException(refusal);
        }
    }

    /** The class that called the method calling this one (the hook's install method). */
    public static Class<?> callerOfInstall() {
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(
                frames -> frames.skip(2).findFirst().orElseThrow().getDeclaringClass());
    }
}
